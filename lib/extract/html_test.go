package extract

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

func htmlText(t *testing.T, src string) Result {
	t.Helper()
	r := mustRawText(t, []byte(src), record.DocHTML)
	checkLineMap(t, src, r)
	return r
}

// checkLineMap asserts the Map invariants: one entry per line, First
// non-decreasing, First ≤ Last within the source's lines, marks in order
// inside their line.
func checkLineMap(t testing.TB, src string, r Result) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n")
	if r.Text == "" {
		lines = nil
	}
	if r.Map == nil || len(r.Map) != len(lines) {
		t.Fatalf("Map has %d entries for %d lines", len(r.Map), len(lines))
	}
	srcLines := strings.Count(src, "\n") + 1
	prev := 1
	for i, l := range r.Map {
		if l.First < prev || l.Last < l.First || l.Last > srcLines {
			t.Fatalf("Map[%d] = L%d-L%d (previous first %d, source has %d lines)", i, l.First, l.Last, prev, srcLines)
		}
		prev = l.First
		end := 0
		for _, mk := range l.Marks {
			if mk.From < end || mk.To < mk.From || mk.To > len(lines[i]) || (mk.From == mk.To) != (mk.Kind == srcmap.Gap) {
				t.Fatalf("line %d %q: bad marks %v", i+1, lines[i], l.Marks)
			}
			end = mk.To
		}
	}
}

// firsts lists the map's First lines.
func firsts(m srcmap.Map) []int {
	out := make([]int, len(m))
	for i, l := range m {
		out[i] = l.First
	}
	return out
}

func TestHTMLDocument(t *testing.T) {
	src := `<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8">
  <title>The  Guide &amp; More</title>
  <style>body { color: red }</style>
  <script>var secret = "drop me";</script>
</head>
<body>
<h1>The Guide &amp; More</h1>
<p>First paragraph with <b>bold</b> and
a <a href="https://example.com/x">link</a> and a <a href="/rel">relative one</a>.</p>
<noscript>enable js</noscript>
<ul>
  <li>one</li>
  <li>two
    <ol start="3"><li>three</li><li>four</li></ol>
  </li>
</ul>
<pre><code>func main() {
	fmt.Println("&lt;hi&gt;")

}
</code></pre>
<table>
  <tr><th>Name</th><th>Value</th></tr>
  <tr><td>a</td><td>1</td></tr>
</table>
<h2>End</h2>
<p>Bye&nbsp;now.<br>Second line.</p>
<svg><text>svg text</text></svg>
<template><p>tpl</p></template>
</body>
</html>
`
	r := htmlText(t, src)
	want := `# The Guide & More

First paragraph with bold and
a [link](https://example.com/x) and a relative one.

- one
- two
  3. three
  4. four

` + "```" + `
func main() {
	fmt.Println("<hi>")

}
` + "```" + `

Name | Value
a | 1

## End

Bye now.
Second line.
`
	if r.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", r.Text, want)
	}
	if r.Title != "The Guide & More" {
		t.Errorf("title = %q", r.Title)
	}
	wantMap := []int{5, 5, 11, 12, 12, 15, 16, 17, 17, 17, 20, 20, 21, 22, 23, 24, 24, 26, 27, 27, 29, 29, 30, 30}
	if fmt.Sprint(firsts(r.Map)) != fmt.Sprint(wantMap) {
		t.Errorf("Map firsts = %v\n           want %v", firsts(r.Map), wantMap)
	}
	for _, gone := range []string{"secret", "color", "enable js", "svg text", "tpl", "utf-8"} {
		if strings.Contains(r.Text, gone) {
			t.Errorf("output contains %q", gone)
		}
	}
}

// Every representation line's first word appears on the source line the
// map names.
func TestHTMLLineMapPointsAtSource(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body>\n")
	for i := range 50 {
		fmt.Fprintf(&b, "<section>\n<h3>Heading%d</h3>\n<p>\nalpha%d beta\ngamma%d <i>delta</i>\n</p>\n", i, i, i)
		if i%5 == 0 {
			fmt.Fprintf(&b, "<script>\nvar x%d = 1;\n\n</script>\n<div><p>para%d</p>\n<ul><li>item%d</li>\n<li>\nitemb%d</li></ul></div>\n", i, i, i, i)
		}
		b.WriteString("</section>\n")
	}
	src := b.String()
	r := htmlText(t, src)
	srcLines := strings.Split(src, "\n")
	for i, line := range strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n") {
		word := strings.TrimLeft(line, "#- ")
		if f := strings.Fields(word); len(f) > 0 {
			word = f[0]
		}
		if word == "" {
			continue
		}
		if got := srcLines[r.Map[i].First-1]; !strings.Contains(got, word) {
			t.Errorf("line %d %q maps to source line %d %q", i+1, line, r.Map[i].First, got)
		}
	}
}

func TestHTMLMalformed(t *testing.T) {
	cases := map[string]string{
		"unclosed":       "<div><p>one <b>bold <i>both\n<p>two",
		"stray ends":     "</p></div></li></td></pre></a></h1>text</ul></ol></blockquote>",
		"angle soup":     "<<>><<a <b> c >>> &amp &bogus; &#0; &#xD800; &#1;x",
		"unclosed pre":   "<pre>code\n\n  more",
		"unclosed attr":  `<a href="https://x.y/ unterminated>text</a> after`,
		"cell outside":   "<td>a</td><td>b</td><th>c",
		"nested lists":   "<ul><li><ul><li><ul><li>deep</ul></ul></ul>",
		"head no body":   "<html><head><title>T</title><p>para without body",
		"entity cr":      "<p>a&#13;b&#10;c</p><pre>x&#13;y</pre>",
		"href newline":   "<a href=\"https://ex\nample.com/\">link</a>",
		"nul":            "<p>a\x00b</p>",
		"comment":        "<!-- a\n\ncomment --><p>after</p><!-- unterminated\n",
		"link block":     `<a href="https://x.y/"><div>card</div><p>text</p></a>`,
		"empty elements": "<h1></h1><li></li><pre></pre><table><tr><td></td></tr></table><a href='https://a.b/'></a>",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			r := htmlText(t, src)
			if strings.Contains(r.Text, "\r") || strings.Contains(r.Text, "\x00") || strings.Contains(r.Text, "\x01") {
				t.Errorf("control character in %q", r.Text)
			}
		})
	}
	if r := htmlText(t, cases["unclosed"]); r.Text != "one bold both\n\ntwo\n" {
		t.Errorf("unclosed: got %q", r.Text)
	}
	if r := htmlText(t, cases["head no body"]); r.Text != "# T\n\npara without body\n" || r.Title != "T" {
		t.Errorf("head no body: got %q, title %q", r.Text, r.Title)
	}
	if r := htmlText(t, cases["href newline"]); r.Text != "[link](https://example.com/)\n" {
		t.Errorf("href newline: got %q", r.Text)
	}
	if r := htmlText(t, cases["entity cr"]); r.Text != "a b\nc\n\n```\nx y\n```\n" {
		t.Errorf("entity cr: got %q", r.Text)
	}
}

func TestHTMLUnclosedScriptDropsRest(t *testing.T) {
	r := htmlText(t, "<p>kept</p><script>var a = '</scr' + 'ipt>'; never closed\n<p>gone")
	if r.Text != "kept\n" {
		t.Errorf("got %q", r.Text)
	}
}

func TestHTMLTitleFallsBackToH1(t *testing.T) {
	r := htmlText(t, "<body><h2>Not this</h2><h1>Main   Title</h1><h1>Second</h1></body>")
	if r.Title != "Main Title" {
		t.Errorf("title = %q", r.Title)
	}
	if r.Text != "## Not this\n\n# Main Title\n\n# Second\n" {
		t.Errorf("text = %q", r.Text)
	}
}

func TestHTMLLinkWhoseTextIsTheURL(t *testing.T) {
	r := htmlText(t, `<p>See <a href="https://go.dev/doc">https://go.dev/doc</a> or <a href="https://go.dev/">go.dev/</a>.</p>`)
	if r.Text != "See https://go.dev/doc or go.dev/.\n" {
		t.Errorf("got %q", r.Text)
	}
}

func TestHTMLBlockquoteAndImages(t *testing.T) {
	r := htmlText(t, "<blockquote><p>quoted\ntext</p></blockquote><p><img src=x.png alt=\"A cat\"> sits</p><hr><p>end</p>")
	want := "> quoted\n> text\n\nA cat sits\n\n---\n\nend\n"
	if r.Text != want {
		t.Errorf("got %q, want %q", r.Text, want)
	}
}

func TestHTMLDeclaredCharset(t *testing.T) {
	body, err := japanese.ShiftJIS.NewEncoder().String("<p>日本語のページ</p>")
	if err != nil {
		t.Fatal(err)
	}
	src := `<html><head><meta charset="shift_jis"><title>t</title></head><body>` + body + "</body></html>"
	r := mustRawText(t, []byte(src), record.DocHTML)
	if r.Encoding != "shift_jis" || !strings.Contains(r.Text, "日本語のページ") {
		t.Errorf("got %q (%s)", r.Text, r.Encoding)
	}
	// A valid UTF-8 page wins over a wrong declaration.
	r = mustRawText(t, []byte(`<meta charset="iso-8859-1"><p>café</p>`), record.DocHTML)
	if r.Encoding != EncUTF8 || r.Text != "café\n" {
		t.Errorf("got %q (%s)", r.Text, r.Encoding)
	}
}

// Deep nesting and a large input go through in one linear pass.
func TestHTMLLargeAndDeep(t *testing.T) {
	var b strings.Builder
	for range 20000 {
		b.WriteString("<div><span>")
	}
	b.WriteString("deep")
	for range 5000 {
		b.WriteString("<p>para <b>x</b></p>\n<ul><li>i</li></ul>\n")
	}
	src := b.String()
	r := htmlText(t, src)
	if !strings.HasPrefix(r.Text, "deep") || strings.Count(r.Text, "para x") != 5000 {
		t.Errorf("unexpected output: %q...", r.Text[:min(len(r.Text), 80)])
	}
}

func TestHTMLWithoutTags(t *testing.T) {
	for in, want := range map[string]string{
		"x あい":                "x あい\n",
		"あい\nline two  ":      "あい\nline two\n",
		"  lead &amp; trail ": "lead & trail\n",
	} {
		if r := htmlText(t, in); r.Text != want {
			t.Errorf("%q: got %q, want %q", in, r.Text, want)
		}
	}
}

// Omitted end tags (legal for </td>, common for headings) must not glue
// the rest of the page onto one line.
func TestHTMLOmittedEndTags(t *testing.T) {
	cases := map[string]string{
		"<table><tr><td>a<td>b<tr><td>c</table><p>after\ntext":         "a | b\nc\n\nafter\ntext\n",
		"<h1>Title<p>para\nnext":                                       "# Title\n\npara\nnext\n",
		"<h2>One<h3>Two</h3><p>p</p>":                                  "## One\n\n### Two\n\np\n",
		"<td><h3>In cell</h3><p>para</p></td><td>b</td></tr><p>out\nx": "In cell para | b\n\nout\nx\n",
		"<p>before</p><svg><text>x</text></body><p>late":               "before\n\nlate\n",
	}
	for in, want := range cases {
		if r := htmlText(t, in); r.Text != want {
			t.Errorf("%q:\n got %q\nwant %q", in, r.Text, want)
		}
	}
}

func TestHTMLListItemsWithBlocks(t *testing.T) {
	cases := map[string]string{
		"<ul><li><p>first</p></li><li><p>second</p><p>more</p></li></ul><p>after</p>": "- first\n\n- second\n\n  more\n\nafter\n",
		"<ul><li></li></ul><p>no marker</p>":                                          "no marker\n",
		"<ol><li><pre>code\n</pre></li></ol>":                                         "1. ```\ncode\n```\n",
	}
	for in, want := range cases {
		if r := htmlText(t, in); r.Text != want {
			t.Errorf("%q:\n got %q\nwant %q", in, r.Text, want)
		}
	}
}
