package chunk

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestTextEmptyAndBlank(t *testing.T) {
	for _, in := range []string{"", "\n", " \n\t\n\n"} {
		if got := Text(in, TextOptions{}); len(got) != 0 {
			t.Errorf("Text(%q) = %d pieces, want none", in, len(got))
		}
	}
}

func TestTextSmallDocIsOnePiece(t *testing.T) {
	got := Text("\nHello.\n\nWorld.\n\n", TextOptions{})
	want := []Piece{{Text: "Hello.\n\nWorld.", Span: record.Lines(2, 4)}}
	if len(got) != 1 || got[0] != want[0] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestTextChunksAlignToLinesAndFit(t *testing.T) {
	doc := markdownDoc(40, 6)
	opt := TextOptions{MaxChars: 1200, OverlapChars: 150, MinChars: 100}
	pieces := Text(doc, opt)
	if len(pieces) < 20 {
		t.Fatalf("got %d pieces, want many", len(pieces))
	}
	checkPieces(t, doc, pieces, opt.MaxChars+opt.MinChars)
	for i, p := range pieces[:len(pieces)-1] {
		if len(p.Text) > opt.MaxChars {
			t.Errorf("piece %d is %d bytes, over MaxChars", i, len(p.Text))
		}
	}
}

// Breaks land before headings when one is in reach, and such a piece starts
// clean (no overlap); paragraph breaks carry overlap.
func TestTextPrefersHeadingsAndParagraphs(t *testing.T) {
	doc := markdownDoc(30, 4) // sections of ~750 bytes
	lines := sourceLines(doc)
	pieces := Text(doc, TextOptions{MaxChars: 1000, OverlapChars: 200, MinChars: 50})
	headingStarts := 0
	for i, p := range pieces[1:] {
		first := lines[p.Span.StartLine-1]
		prevEnd := pieces[i].Span.EndLine
		switch {
		case strings.HasPrefix(first, "## "):
			headingStarts++
			if p.Span.StartLine <= prevEnd {
				t.Errorf("piece %d starts at a heading but overlaps the previous piece", i+1)
			}
		case strings.HasPrefix(first, "Paragraph "), strings.HasPrefix(first, "It goes"), strings.HasPrefix(first, "A third"):
			if p.Span.StartLine > prevEnd {
				t.Errorf("piece %d starts mid-section without overlap", i+1)
			}
		default:
			t.Errorf("piece %d starts at %q", i+1, first)
		}
		// The previous piece ends at a paragraph end.
		if last := lines[prevEnd-1]; !strings.HasPrefix(last, "A third") && last != "Intro paragraph." {
			t.Errorf("piece %d ends mid-paragraph with %q", i, last)
		}
	}
	if headingStarts < len(pieces)/2 {
		t.Errorf("only %d of %d pieces start at a heading", headingStarts, len(pieces))
	}
}

func TestTextIgnoresHashLinesInFences(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Title\n\n```sh\n")
	for i := range 200 {
		fmt.Fprintf(&b, "# comment %d in a shell script\necho %d\n", i, i)
	}
	b.WriteString("```\n")
	doc := b.String()
	lines := sourceLines(doc)
	pieces := Text(doc, TextOptions{MaxChars: 1000, OverlapChars: 100})
	checkPieces(t, doc, pieces, 1000)
	for i, p := range pieces[1:] {
		// A fence comment is not a heading: no piece may start clean there.
		if strings.HasPrefix(lines[p.Span.StartLine-1], "# comment") && p.Span.StartLine > pieces[i].Span.EndLine {
			t.Errorf("piece %d treats a fenced shell comment as a heading", i+1)
		}
	}
}

func TestTextOverlapIsWholeLinesWithinBudget(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %04d of plain text without punctuation\n", i)
	}
	doc := b.String()
	lines := sourceLines(doc)
	pieces := Text(doc, TextOptions{MaxChars: 2500, OverlapChars: 250, MinChars: 200})
	checkPieces(t, doc, pieces, 2500+200)
	for i := 1; i < len(pieces); i++ {
		prev, cur := pieces[i-1].Span, pieces[i].Span
		if cur.StartLine > prev.EndLine {
			t.Fatalf("piece %d has no overlap", i)
		}
		over := strings.Join(lines[cur.StartLine-1:prev.EndLine], "\n")
		if len(over) > 250 {
			t.Errorf("piece %d overlaps %d bytes, over 250", i, len(over))
		}
		if next := lines[cur.StartLine-2]; len(over)+1+len(next) <= 250 {
			t.Errorf("piece %d overlap could include one more line and stay within budget", i)
		}
	}
}

func TestTextMergesShortTail(t *testing.T) {
	var b strings.Builder
	for i := range 63 {
		fmt.Fprintf(&b, "line %02d %s\n", i, strings.Repeat("w", 41)) // 50 bytes with "\n"
	}
	doc := b.String()
	lines := sourceLines(doc)
	// 10 lines fill 499 of 500 bytes: six full pieces, then 3 lines (149 bytes).
	pieces := Text(doc, TextOptions{MaxChars: 500, OverlapChars: -1, MinChars: 200})
	checkPieces(t, doc, pieces, 700)
	if len(pieces) != 6 {
		t.Fatalf("got %d pieces, want 6 with the short tail merged", len(pieces))
	}
	last := pieces[5]
	if last.Span != record.Lines(51, 63) || last.Text != strings.Join(lines[50:], "\n") {
		t.Errorf("last piece = %+v, want L51-L63", last.Span)
	}
	none := Text(doc, TextOptions{MaxChars: 500, OverlapChars: -1, MinChars: -1})
	if len(none) != 7 || none[6].Span != record.Lines(61, 63) {
		t.Errorf("without MinChars got %d pieces, want 7 ending with L61-L63", len(none))
	}
}

func TestTextSplitsOverlongLineAtSentences(t *testing.T) {
	para := strings.Repeat("This sentence is part of one very long paragraph line. ", 200)
	doc := "# Head\n\n" + para + "\n\nAfter.\n"
	pieces := Text(doc, TextOptions{MaxChars: 1000, OverlapChars: 100, MinChars: 50})
	checkPieces(t, doc, pieces, 1000+50)
	split := 0
	for _, p := range pieces {
		if p.Span.StartLine == 3 && p.Span.EndLine == 3 {
			split++
			if !strings.HasSuffix(p.Text, ".") {
				t.Errorf("split piece %d does not end at a sentence end: ...%q", p.Ordinal, p.Text[len(p.Text)-15:])
			}
			if !strings.HasPrefix(p.Text, "This") {
				t.Errorf("split piece %d does not start at a sentence or word: %q...", p.Ordinal, p.Text[:15])
			}
		}
	}
	if split < 10 {
		t.Errorf("the 11 KB line became %d pieces, want >= 10", split)
	}
	// "After." (6 bytes) is under MinChars: merged into the last part.
	last := pieces[len(pieces)-1]
	if last.Span.EndLine != 5 || !strings.HasSuffix(last.Text, "\n\nAfter.") {
		t.Errorf("last piece = L%d-L%d %q, want the tail merged", last.Span.StartLine, last.Span.EndLine, last.Text)
	}
}

func TestTextUnicode(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "第%d段：これは日本語の文章です。Ünïcödé ✓ 🚀\n\n", i)
	}
	b.WriteString(strings.Repeat("長い行", 2000) + "\n")
	doc := b.String()
	pieces := Text(doc, TextOptions{MaxChars: 700})
	checkPieces(t, doc, pieces, 700+200)
	for _, p := range pieces {
		if !utf8.ValidString(p.Text) {
			t.Fatalf("piece %d is invalid UTF-8", p.Ordinal)
		}
	}
}

func TestTextDeterministicAndStableUnderEdits(t *testing.T) {
	doc := markdownDoc(60, 5)
	lines := sourceLines(doc)
	before := Text(doc, TextOptions{})
	if again := Text(doc, TextOptions{}); !reflectEqual(before, again) {
		t.Fatal("two runs on the same input differ")
	}
	at := len(lines) - 6
	edited := append(append(append([]string(nil), lines[:at]...), "## Inserted heading", "", "An edited, longer line near the end of the document."), lines[at+1:]...)
	cases := []struct {
		name string
		doc  string
		line int
	}{
		{"edit", strings.Join(edited, "\n") + "\n", at + 1},
		{"append", doc + "\n## New section\n\nMore text.\n", len(lines) + 1},
		{"truncate", strings.Join(lines[:len(lines)-3], "\n") + "\n", len(lines) - 2},
	}
	maxWindow := DefaultTextOptions().MaxChars / 2
	for _, tc := range cases {
		after := Text(tc.doc, TextOptions{})
		// Pieces whose window ends before the change are kept; the one
		// before the last may absorb a short tail.
		want := 0
		for want < len(before) && windowEnd(lines, before[want].Span.EndLine, maxWindow) < tc.line {
			want++
		}
		want--
		if want < len(before)-4 {
			t.Fatalf("%s: test setup: change is not near the end", tc.name)
		}
		if n := samePrefix(before, after); n < want {
			t.Errorf("%s: only %d leading pieces unchanged, want >= %d", tc.name, n, want)
		}
		if reflectEqual(before, after) {
			t.Errorf("%s: nothing changed", tc.name)
		}
	}
}

// windowEnd returns the last 1-based line a text window ending at line end
// may look at: maxBytes further, plus one line.
func windowEnd(lines []string, end, maxBytes int) int {
	n := 0
	l := end
	for l < len(lines) && n+len(lines[l])+1 <= maxBytes {
		n += len(lines[l]) + 1
		l++
	}
	return l + 1
}

func TestOptionsDefaults(t *testing.T) {
	if got := (CodeOptions{}).normalized(); got != DefaultCodeOptions() {
		t.Errorf("zero CodeOptions = %+v, want defaults", got)
	}
	if got := (TextOptions{}).normalized(); got != DefaultTextOptions() {
		t.Errorf("zero TextOptions = %+v, want defaults", got)
	}
	if got := (CodeOptions{MaxLines: 10, OverlapLines: 50}).normalized(); got.OverlapLines != 5 {
		t.Errorf("overlap is not capped at half a window: %+v", got)
	}
	if got := (TextOptions{OverlapChars: -1, MinChars: -1}).normalized(); got.OverlapChars != 0 || got.MinChars != 0 {
		t.Errorf("negative options = %+v, want none", got)
	}
}
