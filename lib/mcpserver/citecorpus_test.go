package mcpserver

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// citeCorpus writes random files of every text type for the citation
// property test: code, text, markdown, data and HTML, with CRLF, BOM and
// Latin-1 variants, overlong lines, and HTML that is minified, malformed or
// hostile. Every word of prose comes from vocab, so queries drawn from it
// find many files.
type citeCorpus struct {
	rng   *rand.Rand
	vocab []string
	files map[string][]byte
}

func newCiteCorpus(seed uint64) *citeCorpus {
	c := &citeCorpus{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), files: map[string][]byte{}}
	syll := []string{"ka", "lo", "mer", "ti", "van", "so", "rel", "qu", "zan", "pi", "dor", "fe", "nux", "ba", "gri", "e", "ost", "ul"}
	seen := map[string]bool{}
	for len(c.vocab) < 160 {
		var b strings.Builder
		for range 2 + c.rng.IntN(3) {
			b.WriteString(syll[c.rng.IntN(len(syll))])
		}
		if w := b.String(); !seen[w] && len(w) >= 4 {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	return c
}

func (c *citeCorpus) word() string { return c.vocab[c.rng.IntN(len(c.vocab))] }

func (c *citeCorpus) words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = c.word()
	}
	return strings.Join(w, " ")
}

func (c *citeCorpus) sentence() string {
	s := c.words(4 + c.rng.IntN(10))
	return strings.ToUpper(s[:1]) + s[1:] + []string{".", ".", "!", "?", ";", ":"}[c.rng.IntN(6)]
}

func (c *citeCorpus) chance(p float64) bool { return c.rng.Float64() < p }

// generate writes n files of each type.
func (c *citeCorpus) generate(n int) map[string][]byte {
	for i := range n {
		c.add(fmt.Sprintf("code/f%d.go", i), c.code(i))
		c.add(fmt.Sprintf("code/f%d.py", i), c.python())
		c.add(fmt.Sprintf("notes/n%d.txt", i), c.text())
		c.add(fmt.Sprintf("docs/d%d.md", i), c.markdown())
		c.add(fmt.Sprintf("data/j%d.json", i), c.json())
		c.add(fmt.Sprintf("data/t%d.csv", i), c.csv())
		c.add(fmt.Sprintf("data/y%d.yaml", i), c.yaml())
		for j := range 3 {
			c.addHTML(fmt.Sprintf("site/p%d_%d.html", i, j))
		}
	}
	return c.files
}

// add stores a file, sometimes with CRLF line ends or a BOM.
func (c *citeCorpus) add(name, body string) {
	switch {
	case c.chance(0.15):
		body = strings.ReplaceAll(body, "\n", "\r\n")
	case c.chance(0.1):
		body = "\uFEFF" + body
	case c.chance(0.1) && !strings.HasSuffix(name, ".json"):
		// Latin-1: é and ü are single bytes, so the file is not UTF-8.
		body = strings.Replace(body, c.word(), "café über", 1)
		if b, err := charmap.ISO8859_1.NewEncoder().String(body); err == nil {
			c.files[name] = []byte(b)
			return
		}
	}
	c.files[name] = []byte(body)
}

func (c *citeCorpus) code(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package p%d %s\npackage p%d\n\n", i, c.sentence(), i)
	for range 8 + c.rng.IntN(30) {
		name := c.word()
		fmt.Fprintf(&b, "// %s %s\nfunc %s(a int) int {\n", name, c.sentence(), name)
		for range 1 + c.rng.IntN(6) {
			fmt.Fprintf(&b, "\tif a > %d { // %s\n\t\ta -= %d\n\t}\n", c.rng.IntN(99), c.words(3), c.rng.IntN(9))
		}
		b.WriteString("\treturn a\n}\n\n")
		if c.chance(0.05) { // a minified constant longer than a code chunk
			fmt.Fprintf(&b, "var blob = %q\n\n", strings.Repeat(c.words(20)+"; ", 40))
		}
	}
	return b.String()
}

func (c *citeCorpus) python() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"%s\n\n%s\n\"\"\"\n\n", c.sentence(), c.sentence())
	for range 5 + c.rng.IntN(20) {
		fmt.Fprintf(&b, "def %s(x):\n    # %s\n    return x * %d\n\n\n", c.word(), c.sentence(), c.rng.IntN(9))
	}
	return b.String()
}

func (c *citeCorpus) text() string {
	var b strings.Builder
	for range 5 + c.rng.IntN(40) {
		for range 1 + c.rng.IntN(6) {
			b.WriteString(c.sentence())
			if c.chance(0.3) {
				b.WriteString(" " + c.sentence())
			}
			b.WriteByte('\n')
		}
		if c.chance(0.05) { // one overlong line
			for range 40 {
				b.WriteString(c.sentence() + " ")
			}
			b.WriteByte('\n')
		}
		if c.chance(0.05) {
			b.WriteString("\f\n")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (c *citeCorpus) markdown() string {
	var b strings.Builder
	if c.chance(0.5) {
		fmt.Fprintf(&b, "---\ntitle: %s\ntags: [%s]\n---\n\n", c.words(3), c.word())
	}
	fmt.Fprintf(&b, "# %s\n\n", c.words(3))
	for range 3 + c.rng.IntN(15) {
		switch c.rng.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "## %s\n\n", c.words(2+c.rng.IntN(3)))
		case 1:
			for range 2 + c.rng.IntN(5) {
				fmt.Fprintf(&b, "- %s [%s](https://example.com/%s)\n", c.sentence(), c.word(), c.word())
			}
			b.WriteByte('\n')
		case 2:
			fmt.Fprintf(&b, "```go\nfunc %s() {}\n// %s\n```\n\n", c.word(), c.words(5))
		case 3:
			fmt.Fprintf(&b, "| %s | %s |\n|---|---|\n| %s | %s |\n\n", c.word(), c.word(), c.words(2), c.words(3))
		default:
			fmt.Fprintf(&b, "%s %s\n%s\n\n", c.sentence(), c.sentence(), c.sentence())
		}
	}
	return b.String()
}

func (c *citeCorpus) json() string {
	var b strings.Builder
	oneLine := c.chance(0.3)
	nl, ind := "\n", "  "
	if oneLine {
		nl, ind = "", ""
	}
	b.WriteString("{" + nl)
	n := 3 + c.rng.IntN(25)
	for i := range n {
		fmt.Fprintf(&b, "%s%q: {%s%s%q: %q,%s%s%q: [%d, %q]%s%s}", ind, c.word(), nl, ind+ind, "text", c.sentence(), nl, ind+ind, "list", i, c.words(3), nl, ind)
		if i < n-1 {
			b.WriteString(",")
		}
		b.WriteString(nl)
	}
	b.WriteString("}\n")
	return b.String()
}

func (c *citeCorpus) csv() string {
	var b strings.Builder
	b.WriteString("id,name,description\n")
	for i := range 5 + c.rng.IntN(60) {
		fmt.Fprintf(&b, "%d,%s,\"%s\"\n", i, c.word(), c.sentence())
	}
	return b.String()
}

func (c *citeCorpus) yaml() string {
	var b strings.Builder
	for range 3 + c.rng.IntN(20) {
		fmt.Fprintf(&b, "%s:\n  summary: %s\n  items:\n    - %s\n    - %s\n", c.word(), c.sentence(), c.words(2), c.words(3))
	}
	return b.String()
}
