package extract_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// HTML → raw_text → chunks → Remap: every chunk's span names source lines
// that hold its first and last words, so citations open the right lines.
func TestHTMLChunksCiteSourceLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html><head>\n<title>Doc</title>\n<script>\nvar x;\n</script>\n</head><body>\n")
	for i := range 80 {
		fmt.Fprintf(&b, "<h2>Part%d</h2>\n<p>\nopen%d words words words words words words words words\nmiddle words words words\nclose%d.\n</p>\n", i, i, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "<style>\n.a{}\n</style>\n<pre>\ncode%d\n  indented\n</pre>\n", i)
		}
	}
	b.WriteString("</body></html>\n")
	src := b.String()
	res, err := extract.RawText([]byte(src), record.DocHTML)
	if err != nil {
		t.Fatal(err)
	}
	pieces := chunk.Text(res.Text, chunk.TextOptions{MaxChars: 600, OverlapChars: 100, MinChars: 50})
	chunk.Remap(pieces, res.Map)
	srcLines := strings.Split(src, "\n")
	if len(pieces) < 10 {
		t.Fatalf("got %d pieces", len(pieces))
	}
	for _, p := range pieces {
		span := strings.Join(srcLines[p.Span.StartLine-1:p.Span.EndLine], "\n")
		words := strings.Fields(strings.NewReplacer("#", " ", "`", " ").Replace(p.Text))
		for _, w := range []string{words[0], words[len(words)-1]} {
			if !strings.Contains(span, w) {
				t.Errorf("piece %d (L%d-L%d) word %q is not in its source lines", p.Ordinal, p.Span.StartLine, p.Span.EndLine, w)
			}
		}
	}
}
