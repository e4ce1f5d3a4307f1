package corpora

import (
	"regexp"
	"strings"
)

// Traefik v3.7.13 as a Go module from the proxy: its Go code and its
// markdown documentation (docs/content), a repository with docs and code.
var traefik = &Corpus{
	Name: "traefik",
	Pin:  "Go module github.com/traefik/traefik/v3@v3.7.13 (every file of the module zip)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return c.extractGoMod(goMod{"github.com/traefik/traefik/v3", "v3.7.13", "2165610ab0e3d4b4084ec3ee70ef87cccfd3ecd13720f38a3e0e776ac85a3325"}, dst)
	},
	masks: map[string]func(string) error{"noheadings": func(root string) error {
		return rewrite(root, isDocsMarkdown, func(_, text string) string {
			lines := strings.Split(text, "\n")
			for _, h := range mdHeadings(lines) {
				lines[h.line-1] = ""
			}
			return strings.Join(lines, "\n")
		})
	}},
}

var headingSet = &Set{
	Corpus: "traefik", Name: "heading", Variants: []string{Orig, "noheadings"}, prefix: "mdh", max: 400,
	Query:    "a markdown section heading of the docs (at least 3 words, no code), e.g. \"Add a new plugin to a Traefik instance\"",
	Relevant: "the section's own lines (heading to the last text line before the next heading)",
	gen:      headingItems,
}

func isDocsMarkdown(rel string) bool {
	return strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md")
}

type mdHeading struct {
	line, level int // 1-based line
	raw         string
}

var mdATX = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)

// mdHeadings lists the ATX headings of a markdown file outside code fences.
func mdHeadings(lines []string) []mdHeading {
	var out []mdHeading
	fence := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if m := mdATX.FindStringSubmatch(l); m != nil {
			out = append(out, mdHeading{i + 1, len(m[1]), m[2]})
		}
	}
	return out
}

var mdAttrs = regexp.MustCompile(`\s*\{[^}]*\}\s*$|<[^>]+>`)

func headingItems(root string) ([]Item, error) {
	var items []Item
	err := walkFiles(root, isDocsMarkdown, func(rel, text string) error {
		lines := strings.Split(text, "\n")
		hs := mdHeadings(lines)
		for k, h := range hs {
			if strings.Contains(h.raw, "`") {
				continue
			}
			q := oneLine(plainMarkdown(mdAttrs.ReplaceAllString(h.raw, "")))
			if len(strings.Fields(q)) < 3 {
				continue
			}
			next := len(lines)
			if k+1 < len(hs) {
				next = hs[k+1].line - 1
			}
			last := 0
			for j := h.line; j < next; j++ { // lines[j] is line j+1
				if strings.TrimSpace(lines[j]) != "" {
					last = j + 1
				}
			}
			if last == 0 {
				continue // a heading with no text of its own
			}
			items = append(items, Item{Key: rel + "#" + q, Query: q, Rel: map[string]int{lineDoc(rel, h.line, last): 1}})
		}
		return nil
	})
	return items, err
}
