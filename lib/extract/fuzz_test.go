package extract

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

func FuzzRawText(f *testing.F) {
	seeds := []string{
		"", "plain\r\ntext\rmixed\n", "\xef\xbb\xbfbom", "\xff\xfeh\x00i\x00", "\xfe\xff\x00h\x00i",
		"caf\xe9\n", "<html><head><title>x</title></head><body><p>a<b>b</p><pre>\n c\n</pre></body>",
		"<table><tr><td>1<td>2</table><ul><li>x<li>y</ul>", "---\ntitle: t\n---\n# h\n", "<script>x", "<a href='https://a/'>\n</a>",
		"\x00\x01\x02\x03", "<meta charset=shift_jis>\x82\xa0\x82\xa2",
	}
	types := []string{record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML}
	for _, s := range seeds {
		for i := range types {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, content []byte, ti uint8) {
		defer hangcheck.Arm()()
		docType := types[int(ti)%len(types)]
		r, err := RawText(content, docType)
		if err != nil {
			return
		}
		if !utf8.ValidString(r.Text) || !utf8.ValidString(r.Title) {
			t.Fatal("output is not valid UTF-8")
		}
		if strings.ContainsAny(r.Text, "\r\x00") || strings.HasPrefix(r.Text, "\uFEFF") {
			t.Fatalf("output not normalised: %q", r.Text)
		}
		if docType == record.DocHTML {
			src := normalizedSource(content)
			checkLineMap(t, src, r)
			checkSpans(t, src, r.Map)
			return
		}
		if r.Map != nil {
			t.Fatal("non-HTML result has a Map")
		}
		// Valid UTF-8 input keeps its line count: one "\n" per line break.
		if r.Encoding == EncUTF8 && utf8.Valid(content) {
			s := string(content)
			breaks := strings.Count(s, "\n") + strings.Count(s, "\r") - strings.Count(s, "\r\n")
			if got := strings.Count(r.Text, "\n"); got != breaks {
				t.Fatalf("%d line breaks in output, %d in input", got, breaks)
			}
		}
	})
}

// normalizedSource is the decoded, normalised source the HTML line map
// refers to.
func normalizedSource(content []byte) string {
	s, _ := decode(content, true)
	s, _, _ = normalize(s)
	return s
}

// checkSpans asserts that the source span of every line, and of the whole
// text, lies within the source's lines (citations point at real lines).
func checkSpans(t *testing.T, src string, m srcmap.Map) {
	t.Helper()
	srcLines := strings.Count(src, "\n") + 1
	check := func(lo, hi int) {
		if sp := m.Span(lo, hi); sp.StartLine < 1 || sp.EndLine < sp.StartLine || sp.EndLine > srcLines {
			t.Fatalf("Span(%d, %d) = L%d-L%d, source has %d lines", lo, hi, sp.StartLine, sp.EndLine, srcLines)
		}
	}
	for l := 1; l <= len(m); l++ {
		check(l, l)
	}
	check(1, len(m))
}
