package cite_test

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cite"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name, snippet, opened, docType string
		want                           bool
	}{
		{"exact lines", "func a() {\n\treturn 1\n}", "// a\nfunc a() {\n\treturn 1\n}\n", record.DocCode, true},
		{"whitespace does not matter", "one two\nthree", "one\n  two three", record.DocText, true},
		{"other lines", "return 2", "func a() {\n\treturn 1\n}\n", record.DocCode, false},
		{"cut short", "a long sentence that goes on…", "a long sentence that goes on and on\n", record.DocText, true},
		{"elision keeps order", "first…last", "first middle last", record.DocText, true},
		{"elision out of order", "last…first", "first middle last", record.DocText, false},
		{"html text across tags", "Bye now.\nSecond", "<p>Bye&nbsp;<b>now</b>.<br>Second</p>", record.DocHTML, true},
		{"html entity", "a < b & c", "<p>a &lt; b &amp; c</p>", record.DocHTML, true},
		{"html markup is not text", "# Title", "<h1>Title</h1>", record.DocHTML, false},
		{"html table cells", "Name\tValue", "<tr><th>Name</th>\n<th>Value</th></tr>", record.DocHTML, true},
		{"html script dropped", "before after", "<p>before</p><script>var x = '<p>';</script><p>after</p>", record.DocHTML, true},
		{"html noscript dropped", "A B", "<p>A</p><noscript>enable js</noscript><p>B</p>", record.DocHTML, true},
		{"html script is not visible", "var x", "<p>a</p>\n<script>var x = 1;</script>", record.DocHTML, false},
		{"html lines start inside a tag", "Real text", "  class=\"x\">Real <b>text</b>", record.DocHTML, true},
		{"html lines start inside an attribute with markup", "000", "<title>0<A>00", record.DocHTML, true},
		{"markdown is its own text", "# Title\n\n- item", "# Title\n\n- item\n", record.DocMarkdown, true},
		{"nothing visible", "", "anything", record.DocText, true},
	}
	for _, c := range cases {
		if got := cite.Check(c.snippet, c.opened, c.docType); got != c.want {
			t.Errorf("%s: Check(%q, %q) = %v, want %v", c.name, c.snippet, c.opened, got, c.want)
		}
	}
}

func TestVerify(t *testing.T) {
	latin1 := []byte("caf\xe9 one\r\nline two\r\n<p>three</p>\r\n")
	for _, c := range []struct {
		docType, snippet string
		span             record.Span
		want             bool
	}{
		{record.DocText, "café one\nline two", record.Lines(1, 2), true},
		{record.DocText, "line two", record.Lines(1, 1), false},
		{record.DocHTML, "three", record.Lines(3, 3), true},
		{record.DocText, "<p>three</p>", record.Lines(3, 3), true}, // text: the tags are text
		{record.DocHTML, "<p>three", record.Lines(3, 3), false},    // HTML: they are not
		{record.DocText, "line two", record.Lines(2, 1), false},
		{record.DocText, "line two", record.Lines(9, 9), false},
		{record.DocText, "line two", record.Page(2), false},
	} {
		if got := cite.Verify(latin1, c.docType, c.span, c.snippet); got != c.want {
			t.Errorf("Verify(%s, %+v, %q) = %v, want %v", c.docType, c.span, c.snippet, got, c.want)
		}
	}
}

func TestVisible(t *testing.T) {
	got := cite.Visible("<!doctype html><title>T &amp; U</title><!-- c --><svg><text>s</text></svg><p>x<select><option>o</select>y</p><svg><g>open to the end</body>z")
	if got != "T & Uxyz" {
		t.Errorf("Visible = %q", got)
	}
}

// The extractor drops the content of exactly the elements the rule calls
// textless, and keeps the text of others.
func TestExtractorDropsWhatTheRuleDrops(t *testing.T) {
	for name := range extract.Textless {
		r, err := extract.RawText([]byte("<p>kept1</p><"+name+">dropped</"+name+"><p>kept2</p>"), record.DocHTML)
		if err != nil || strings.Contains(r.Text, "dropped") || !strings.Contains(r.Text, "kept2") {
			t.Errorf("<%s>: %q %v", name, r.Text, err)
		}
	}
	for _, name := range []string{"span", "div", "textarea", "label", "button", "summary", "output", "address"} {
		r, err := extract.RawText([]byte("<"+name+">shown</"+name+">"), record.DocHTML)
		if err != nil || !strings.Contains(r.Text, "shown") {
			t.Errorf("<%s>: %q %v", name, r.Text, err)
		}
	}
}
