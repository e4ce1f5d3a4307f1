package chunk

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Join inverts the chunkers: the pieces of a text whose blank lines are
// empty give the text back (without a final newline), overlap included;
// pieces that cannot (a split long line) say so.
func TestJoinInvertsTheChunkers(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		switch {
		case i%37 == 0:
			b.WriteString("\n")
		case i%11 == 0:
			b.WriteString("}\n\n")
		default:
			b.WriteString("\tx := compute(" + strings.Repeat("y", i%50) + ")\n")
		}
	}
	text := b.String()
	want := strings.TrimSuffix(text, "\n")
	for name, pieces := range map[string][]Piece{
		"code": Code(text, CodeOptions{MaxLines: 40, OverlapLines: 10}),
		"text": Text(text, TextOptions{MaxChars: 900, OverlapChars: 200, MinChars: 100}),
	} {
		got, ok := Join(pieces)
		// Join cannot know about trailing blank lines no piece covers.
		if !ok || got != strings.TrimRight(want, "\n") {
			t.Errorf("%s: Join = ok %v, %d bytes; want the %d bytes of the text", name, ok, len(got), len(strings.TrimRight(want, "\n")))
		}
	}
	var words strings.Builder
	for i := range 2000 {
		words.WriteString(strings.Repeat("w", i%7+1) + " ")
	}
	long := words.String()
	if _, ok := Join(Text(long, TextOptions{MaxChars: 500})); ok {
		t.Error("a long line split into parts cannot be joined")
	}
	if _, ok := Join([]Piece{{Text: "a\nb", Span: record.Lines(1, 3)}}); ok {
		t.Error("line count mismatch accepted")
	}
	if got, ok := Join([]Piece{{Text: "a", Span: record.Lines(2, 2)}}); !ok || got != "\na" {
		t.Errorf("gap: %q %v", got, ok)
	}
}
