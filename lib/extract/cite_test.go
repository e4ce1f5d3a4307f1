package extract_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/cite"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// quotesHold checks the promise a representation of content makes: every
// line, and every chunk of it, quoted through the map, is found (by the
// cite rule) in the source lines its span names, and spans run forwards.
func quotesHold(t testing.TB, content []byte, docType string, opt chunk.TextOptions) {
	t.Helper()
	res, err := extract.RawText(content, docType)
	if err != nil {
		return
	}
	src, err := extract.SourceText(content, docType)
	if err != nil {
		t.Fatalf("SourceText fails where RawText does not: %v", err)
	}
	srcLines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	open := func(first, last int) string {
		if first < 1 || last < first || last > len(srcLines) {
			t.Fatalf("span L%d-L%d outside the %d source lines", first, last, len(srcLines))
		}
		return strings.Join(srcLines[first-1:last], "\n")
	}
	lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
	for i, l := range res.Map {
		if q := l.Quote(lines[i]); !cite.Check(q, open(l.First, l.Last), docType) {
			t.Fatalf("line %d %q quotes as %q, not in L%d-L%d:\n%s", i+1, lines[i], q, l.First, l.Last, open(l.First, l.Last))
		}
	}
	pieces := chunk.Text(res.Text, opt)
	maps := chunk.Remap(pieces, res.Map)
	for i, p := range pieces {
		q := p.Text
		if maps != nil {
			q = maps[i].Quote(p.Text)
		}
		if !cite.Check(q, open(p.Span.StartLine, p.Span.EndLine), docType) {
			t.Fatalf("piece %d %q quotes as %q, not in L%d-L%d:\n%s", i, p.Text, q, p.Span.StartLine, p.Span.EndLine,
				open(p.Span.StartLine, p.Span.EndLine))
		}
	}
}

const realPage = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>logging — Logging facility
    for Python</title>
  <style>
    body { font: 12px/1.5 sans-serif }
    .nav > li { display: inline }
  </style>
  <script>if (a < b && c > d) { document.write("<p>x</p>") }</script>
</head>
<body>
<nav><ul class="nav"><li><a href="../index.html">Home</a></li><li><a href="https://docs.python.org/3/">Docs</a></li></ul></nav>
<h1>logging — Logging facility
    for Python<a class="headerlink" href="#x">¶</a></h1>
<p>This module defines functions and classes which implement a flexible
event logging system for <em>applications</em> &amp; libraries.</p>
<table class="docutils">
<thead><tr><th>Level</th>
<th>Numeric value</th></tr></thead>
<tbody>
<tr><td><p>CRITICAL</p></td><td><p>50</p></td></tr>
<tr
  class="row-odd"><td>ERROR</td>
  <td>40</td></tr>
</tbody>
</table>
<pre><span class="n">logger</span> <span class="o">=</span> <span class="n">logging</span><span class="o">.</span><span class="n">getLogger</span><span class="p">(</span><span class="vm">__name__</span><span class="p">)</span>
<span class="k">if</span> <span class="n">x</span> &lt; <span class="mi">3</span><span class="p">:</span>
    <span class="k">pass</span>
</pre>
<ol start="2"><li>First step, see <a href="https://example.com/logging">the
HOWTO</a>.</li>
<li><p>Second step.</p></li>
</ol>
<p>Images: <img src="a.png"
 alt="diagram of handlers"> end.</p>
</body>
</html>
`

// A page shaped like real documentation (head with CSS and a script, nav,
// a heading split over lines, a table whose tags span lines, highlighted
// <pre>, an ordered list with a link, an image): every representation line
// names exactly the source lines its text is on, and quotes as the file
// reads.
func TestHTMLPageMapIsExact(t *testing.T) {
	res, err := extract.RawText([]byte(realPage), record.DocHTML)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		first, last int
		quote       string
	}{
		{5, 6, "logging — Logging facility for Python"},
		{6, 6, ""},
		{14, 14, "Home"},
		{14, 14, "Docs"},
		{14, 14, ""},
		{15, 16, "logging — Logging facility for Python¶"},
		{16, 16, ""},
		{17, 17, "This module defines functions and classes which implement a flexible"},
		{18, 18, "event logging system for applications & libraries."},
		{18, 18, ""},
		{20, 21, "Level\tNumeric value"},
		{23, 23, "CRITICAL\t 50"},
		{25, 26, "ERROR\t40"},
		{26, 26, ""},
		{29, 29, ""}, // the opening fence
		{29, 29, "logger = logging.getLogger(__name__)"},
		{30, 30, "if x < 3:"},
		{31, 31, "    pass"},
		{32, 32, ""},
		{32, 32, ""},
		{33, 34, "First step, see the HOWTO."},
		{34, 34, ""},
		{35, 35, "Second step."},
		{35, 35, ""},
		{37, 38, "Images: end."}, // the alt text is an attribute, not text
	}
	lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
	if len(lines) != len(want) || len(res.Map) != len(want) {
		t.Fatalf("%d lines, %d map entries, want %d:\n%s", len(lines), len(res.Map), len(want), res.Text)
	}
	for i, w := range want {
		m := res.Map[i]
		if m.First != w.first || m.Last != w.last || m.Quote(lines[i]) != w.quote {
			t.Errorf("line %d %q: L%d-L%d quoting %q, want L%d-L%d quoting %q", i+1, lines[i], m.First, m.Last, m.Quote(lines[i]), w.first, w.last, w.quote)
		}
	}
	pieces := chunk.Text(res.Text, chunk.TextOptions{MaxChars: 160, OverlapChars: -1, MinChars: -1})
	maps := chunk.Remap(pieces, res.Map)
	var got []string
	for i, p := range pieces {
		got = append(got, fmt.Sprintf("L%d-L%d %s", p.Span.StartLine, p.Span.EndLine, strings.Fields(maps[i].Quote(p.Text))[0]))
	}
	wantPieces := []string{"L5-L14 logging", "L15-L17 logging", "L18-L26 event", "L29-L35 logger", "L37-L38 Images:"}
	if fmt.Sprint(got) != fmt.Sprint(wantPieces) {
		t.Errorf("pieces %q\n  want %q", got, wantPieces)
	}
	quotesHold(t, []byte(realPage), record.DocHTML, chunk.TextOptions{MaxChars: 100, OverlapChars: 30, MinChars: 10})
}

// The title is written once: an h1 repeating it is left out. Right after
// the title that reads as the file does; after other text a quote marks
// the omission.
func TestHTMLRepeatedTitleQuotes(t *testing.T) {
	for src, want := range map[string]string{
		"<title>Same</title>\n<h1>Same</h1>\n<p>after</p>":                                "Same\n\nafter\n",
		"<title>Same</title>\n<nav><a href=x>Home</a></nav>\n<h1>Same</h1>\n<p>after</p>": "Same\n\nHome\n\n…after\n",
	} {
		res, err := extract.RawText([]byte(src), record.DocHTML)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Map.Quote(res.Text); got != want {
			t.Errorf("%q quotes as %q, want %q", src, got, want)
		}
		quotesHold(t, []byte(src), record.DocHTML, chunk.TextOptions{MaxChars: 100})
	}
}

var citeSeeds = []string{
	"<html><head><title>x</title></head><body><p>a<b>b</p><pre>\n c\n</pre></body>",
	"<table><tr><td>1<td>2</table><ul><li>x<li>y</ul>",
	"<a href='https://a/'>\n</a>",
	"<p>one&#10;two\nthree &amp; four</p><pre>x&#10;y\nz</pre>",
	"<title>Same</title><h1>Same</h1><p>after the title</p>",
	"<title>Same</title><nav><a href=x>Home</a></nav><h1>Same</h1><p>after the title</p>",
	"<head>\nstray head text\n<title>T</title></head><p>body</p>",
	"<p>a <img alt='the\ncat' src=x> b</p><ol start=3><li>x<li><a href=\"https://e.com/x\">e.com</a></ol>",
	"<div\nclass=\"x\"\n>split tag</div><!-- c\n<p>not</p>\n--><p>kept</p>",
	"<title>One</title><title>Two</title><body><blockquote><p>q</p></blockquote><hr><dl><dt>t<dd>d</dl>",
	"<p>x</p><svg><text>no</text></svg><select><option>no</select><noscript>no</noscript><p>y</p>",
	"<p>ctl &#1; &#x85; &#127;</p><pre>&#1;\u00a0x</pre>",
	"<h2>Head <a href=\"https://h.io/\">link\nacross</a> lines</h2>\n<td>cell\n<td>\ncell2",
}

func TestHTMLQuotesAreInTheirLines(t *testing.T) {
	for _, s := range citeSeeds {
		quotesHold(t, []byte(s), record.DocHTML, chunk.TextOptions{MaxChars: 40, OverlapChars: 10, MinChars: 5})
	}
}

// Every text type, any bytes: lines and chunks quote as their cited lines.
func FuzzQuotes(f *testing.F) {
	types := []string{record.DocHTML, record.DocText, record.DocMarkdown, record.DocData, record.DocCode}
	for _, s := range citeSeeds {
		f.Add([]byte(s), uint8(40), uint8(0))
	}
	for i, s := range []string{"a\r\nb\rc\n", "\xef\xbb\xbf# T\n\nbody", "caf\xe9\n\x85x", "---\ntitle: t\n---\n# h\n"} {
		f.Add([]byte(s), uint8(10), uint8(1+i))
	}
	f.Fuzz(func(t *testing.T, content []byte, size, ti uint8) {
		quotesHold(t, content, types[int(ti)%len(types)], chunk.TextOptions{MaxChars: 16 + int(size), OverlapChars: 8, MinChars: 4})
	})
}
