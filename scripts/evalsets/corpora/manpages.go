package corpora

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// The Linux man-pages of Debian manpages-dev (sections 2 and 3), each page
// rendered from roff to plain text by roffText as man<N>/<page>.<N>.txt.
// Pages that are links to other pages (.so, symlinks) are left out.
var manPages = &Corpus{
	Name: "manpages",
	Pin:  "Debian manpages-dev 6.03-2 (every man page that is not a link, rendered to text)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		scratch := dst + ".debs"
		os.RemoveAll(scratch)
		defer os.RemoveAll(scratch)
		if err := c.extractDeb(deb{"manpages-dev", "6.03-2", "96f55cb5e26231d5567c89b692bced63825a14a2d5bd18fdf16ea2ed44eb9838"}, scratch); err != nil {
			return err
		}
		src := filepath.Join(scratch, "usr/share/man")
		return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".gz") {
				return err
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			gz, err := gzip.NewReader(f)
			if err != nil {
				return err
			}
			b, err := io.ReadAll(gz)
			if err != nil {
				return err
			}
			if bytes.HasPrefix(b, []byte(".so ")) {
				return nil
			}
			rel, _ := filepath.Rel(src, strings.TrimSuffix(p, ".gz"))
			return writeFile(dst, filepath.ToSlash(rel)+".txt", strings.NewReader(roffText(string(b))))
		})
	},
	masks: map[string]func(string) error{"nosummary": maskManSummary},
}

var manSet = &Set{
	Corpus: "manpages", Name: "summary", Variants: []string{Orig, "nosummary"}, prefix: "man", max: 400,
	Query:    "the NAME-line summary of a man page, e.g. \"convert a string to a long integer\"",
	Relevant: "the page (whole file)",
	gen:      manItems,
}

// manSummary finds the NAME line of a rendered page: its line index and
// the byte offset of " - " in it.
func manSummary(text string) (line int, dash int, ok bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l != "NAME" {
			continue
		}
		for j := i + 1; j < len(lines) && j < i+4; j++ {
			if d := strings.Index(lines[j], " - "); d > 0 {
				return j, d, true
			}
		}
		return 0, 0, false
	}
	return 0, 0, false
}

func manItems(root string) ([]Item, error) {
	var items []Item
	err := walkFiles(root, suffix(".txt"), func(rel, text string) error {
		i, d, ok := manSummary(text)
		if !ok {
			return nil
		}
		q := oneLine(strings.Split(text, "\n")[i][d+3:])
		if len(strings.Fields(q)) >= 3 {
			items = append(items, Item{Key: rel, Query: q, Rel: map[string]int{rel: 1}})
		}
		return nil
	})
	return items, err
}

// maskManSummary cuts " - <summary>" from every page's NAME line, keeping
// the names.
func maskManSummary(root string) error {
	return rewrite(root, suffix(".txt"), func(_, text string) string {
		i, d, ok := manSummary(text)
		if !ok {
			return text
		}
		lines := strings.Split(text, "\n")
		lines[i] = lines[i][:d]
		return strings.Join(lines, "\n")
	})
}

var (
	roffEscape = regexp.MustCompile(`\\(\[[^\]]*\]|\([a-zA-Z0-9]{2}|\*\[[^\]]*\]|\*\(..|\*.|f\[[^\]]*\]|f\(..|f.|s[-+]?[0-9]|[eE&~ |^%:c\-'` + "`" + `".0]|.)`)
	roffGlyph  = map[string]string{
		"[aq]": "'", "[dq]": `"`, "[rs]": `\`, "[ha]": "^", "[ti]": "~", "[em]": "—", "[en]": "–",
		"[lq]": `"`, "[rq]": `"`, "[oq]": "'", "[cq]": "'", "[bu]": "•", "[mu]": "×", "[co]": "©",
		"[>=]": ">=", "[<=]": "<=", "[!=]": "!=", "[->]": "->", "[<-]": "<-", "[pl]": "+", "[mi]": "-",
		"[hy]": "-", "[ga]": "`", "[bv]": "|", "[or]": "|", "[at]": "@", "[sh]": "#", "[Do]": "$",
		"(aq": "'", "(dq": `"`, "(rs": `\`, "(em": "—", "(en": "–", "(lq": `"`, "(rq": `"`, "(bu": "•",
		"(ti": "~", "(ha": "^", "(mu": "×", "(co": "©", "(>=": ">=", "(<=": "<=", "(->": "->", "(hy": "-",
		"*(lq": `"`, "*(rq": `"`, "*[lq]": `"`, "*[rq]": `"`,
	}
)

// roffUnescape turns roff escapes into text: glyphs by name, font changes
// and other formatting escapes dropped.
func roffUnescape(s string) string {
	return roffEscape.ReplaceAllStringFunc(s, func(m string) string {
		e := m[1:]
		if g, ok := roffGlyph[e]; ok {
			return g
		}
		switch e {
		case "e", "E":
			return `\`
		case "-":
			return "-"
		case "~", " ", "0":
			return " "
		case "'":
			return "'"
		case "`":
			return "`"
		case ".":
			return "."
		}
		return ""
	})
}

// roffArgs splits a macro's arguments, honouring double quotes.
func roffArgs(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.Index(s[1:], `"`)
			if end < 0 {
				out = append(out, s[1:])
				break
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// roffText renders a man page's roff source as plain text: headings on
// their own lines (NAME, SYNOPSIS, ...), paragraphs separated by blank
// lines, font macros joined, escapes decoded, tbl tables as their cells.
// It is a reading aid for an eval corpus, not a full troff.
func roffText(src string) string {
	var out []string
	blank := func() {
		if n := len(out); n > 0 && out[n-1] != "" {
			out = append(out, "")
		}
	}
	inTable, tableFormat := false, false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(line, `.\"`) || strings.HasPrefix(line, `'\"`) || line == "." {
			continue
		}
		if inTable {
			if strings.HasPrefix(line, ".TE") {
				inTable = false
				blank()
				continue
			}
			if tableFormat { // options (";") and format lines up to the one ending in "."
				tableFormat = !strings.HasSuffix(strings.TrimSpace(line), ".")
				continue
			}
			if strings.HasPrefix(line, ".") {
				continue
			}
			line = strings.NewReplacer("T{", "", "T}", "").Replace(line)
			out = append(out, strings.TrimSpace(roffUnescape(strings.ReplaceAll(line, "\t", "  "))))
			continue
		}
		if !strings.HasPrefix(line, ".") && !strings.HasPrefix(line, "'") {
			out = append(out, roffUnescape(line))
			continue
		}
		name, rest, _ := strings.Cut(strings.TrimSpace(line[1:]), " ")
		args := roffArgs(rest)
		switch name {
		case "TH":
			if len(args) >= 2 {
				out = append(out, roffUnescape(args[0]+"("+args[1]+")"))
			}
			blank()
		case "SH", "SS":
			blank()
			out = append(out, roffUnescape(strings.Join(args, " ")))
		case "PP", "P", "LP", "sp", "br", "TP", "EX", "EE", "nf", "fi", "in", "RS", "RE":
			if name != "br" && name != "nf" && name != "fi" && name != "in" {
				blank()
			}
		case "IP":
			blank()
			if len(args) > 0 {
				out = append(out, roffUnescape(args[0]))
			}
		case "B", "I", "SM", "SB":
			out = append(out, roffUnescape(strings.Join(args, " ")))
		case "BR", "RB", "IR", "RI", "BI", "IB":
			out = append(out, roffUnescape(strings.Join(args, "")))
		case "UR", "MT":
			if len(args) > 0 {
				out = append(out, roffUnescape(args[0]))
			}
		case "MR":
			if len(args) >= 2 {
				out = append(out, roffUnescape(args[0]+"("+args[1]+")"+strings.Join(args[2:], "")))
			}
		case "TS":
			inTable, tableFormat = true, true
		}
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}
