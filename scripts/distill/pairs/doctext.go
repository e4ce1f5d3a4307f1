package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/embed/local"
)

var (
	mdImage   = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	mdLink    = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	mdRefLink = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)
	docLink   = regexp.MustCompile(`\{@link(?:code|plain)?\s+([^}|\s]+)(?:[|\s][^}]*)?\}`)
	intraLink = regexp.MustCompile("\\[`?([^\\]`]+)`?\\]")
	htmlTag   = regexp.MustCompile(`<!--[\s\S]*?-->|</?[A-Za-z][^>]*>`)
	bareURL   = regexp.MustCompile(`https?://\S+`)
	sentEnd   = regexp.MustCompile(`[.!?](\s|$)`)
)

// plainDoc turns doc-comment or markdown markup into plain text: images,
// HTML tags and bare URLs dropped, links and {@link X} reduced to their
// text, code spans and emphasis unmarked, white space collapsed.
func plainDoc(s string) string {
	s = htmlTag.ReplaceAllString(mdImage.ReplaceAllString(s, " "), " ")
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdRefLink.ReplaceAllString(s, "$1")
	s = docLink.ReplaceAllString(s, "$1")
	s = intraLink.ReplaceAllString(s, "$1")
	s = bareURL.ReplaceAllString(s, " ")
	s = strings.NewReplacer("`", "", "**", "", "__", "", "*", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// abbreviations end in a full stop that does not end a sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "resp.", "a.k.a.", "Mr.", "Dr."}

// firstSentence returns the first sentence of the first paragraph of a doc
// comment's text (paragraphs end at a blank line), as plain text: up to and
// including the first '.', '!' or '?' followed by a space or the end that
// does not end a common abbreviation; the whole paragraph if none does.
func firstSentence(text string) string {
	para := strings.TrimSpace(text)
	if i := strings.Index(para, "\n\n"); i >= 0 {
		para = para[:i]
	}
	p := plainDoc(para)
	off := 0
	for {
		loc := sentEnd.FindStringIndex(p[off:])
		if loc == nil {
			return p
		}
		end := off + loc[0] + 1
		abbr := false
		for _, a := range abbreviations {
			if strings.HasSuffix(p[:end], a) {
				abbr = true
				break
			}
		}
		if !abbr {
			return p[:end]
		}
		off = end
	}
}

// skipSourceDir reports whether a directory of an npm package or crate
// holds no first-party source or docs: dependencies, tests, fixtures,
// examples, benchmarks, vendored or generated trees.
func skipSourceDir(name string) bool {
	switch strings.ToLower(name) {
	case "node_modules", "test", "tests", "__tests__", "spec", "fixtures", "examples", "example",
		"benches", "bench", "benchmark", "benchmarks", "target", "coverage", ".github":
		return true
	}
	return skipDir(name)
}

// sourceFiles returns the files under dir (in lexical path order) for
// which keep(relative slash path) is true, skipping skipSourceDir trees,
// paths that start with skip and, if only is set, paths that do not start
// with only.
func sourceFiles(dir, skip, only string, keep func(rel string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skipSourceDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type().IsRegular() && (skip == "" || !strings.HasPrefix(rel, skip)) && strings.HasPrefix(rel, only) && keep(rel) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// stripCComments removes // line comments and /* */ block comments from
// C-family source (JavaScript, TypeScript, Rust), leaving string and
// template literals alone; removed comments become a space (newlines kept).
func stripCComments(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				b.WriteByte('\n')
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := strings.Index(src[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			b.WriteString(strings.Repeat("\n", strings.Count(src[i:i+2+j+2], "\n")) + " ")
			i += 2 + j + 1
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c && (c == '`' || src[j] != '\n') {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(src))
			b.WriteString(src[i:end])
			i = end - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// braceBlock returns the lines of src from line start through the line
// that closes the first '{' opened on or after it (brace depth back to
// zero), at most maxLines lines; if a ';' ends the statement before any
// '{', up to that line. src must be comment-free.
func braceBlock(lines []string, start, maxLines int) string {
	depth := 0
	opened := false
	end := min(len(lines), start+maxLines)
	for i := start; i < end; i++ {
		for _, c := range lines[i] {
			switch c {
			case '{':
				depth++
				opened = true
			case '}':
				depth--
			case ';':
				if !opened {
					return strings.Join(lines[start:i+1], "\n")
				}
			}
		}
		if opened && depth <= 0 {
			return strings.Join(lines[start:i+1], "\n")
		}
	}
	return strings.Join(lines[start:end], "\n")
}

// rawIf returns code if raw is set.
func rawIf(raw bool, code string) string {
	if raw {
		return code
	}
	return ""
}

// readEach calls fn with the slash path relative to dir and the text of
// each of files, in order, leaving out files over maxSourceBytes (bundles,
// generated code).
func readEach(files []string, dir string, fn func(rel, text string)) error {
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) <= maxSourceBytes {
			fn(relSlash(dir, p), string(b))
		}
	}
	return nil
}

// codePairs collects the code pairs of one source and kind, each doc
// sentence once.
type codePairs struct {
	src  source
	kind string
	seen map[string]bool
	out  []pair
}

func newCodePairs(src source, kind string) *codePairs {
	return &codePairs{src: src, kind: kind, seen: map[string]bool{}}
}

// add adds the pair of doc comment text doc (its first sentence, ident
// masked) and declaration decl (comment-free) of file rel, unless the
// sentence is too short once masked, already taken, or decl has no words.
func (c *codePairs) add(rel, ident, doc, decl string) {
	orig := firstSentence(doc)
	q, ok := maskIdent(orig, ident)
	if !ok || c.seen[q] {
		return
	}
	code := capWords(local.CodeText(c.src.short+"/"+rel, decl), 300)
	if len(strings.Fields(code)) < 2 {
		return
	}
	c.seen[q] = true
	c.out = append(c.out, pair{Kind: c.kind, Mod: c.src.name, File: rel, Ident: ident, Doc: q, Code: code, Original: orig, Raw: rawIf(c.src.raw, decl)})
}
