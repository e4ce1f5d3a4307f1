package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestCodeEmptyAndBlank(t *testing.T) {
	for _, in := range []string{"", "\n", "\n\n  \n\t\n", "   "} {
		if got := Code(in, CodeOptions{}); len(got) != 0 {
			t.Errorf("Code(%q) = %d pieces, want none", in, len(got))
		}
	}
}

func TestCodeTinyFileIsOnePiece(t *testing.T) {
	src := "\n\npackage main\n\nfunc main() {}\n\n"
	got := Code(src, CodeOptions{})
	if len(got) != 1 {
		t.Fatalf("got %d pieces, want 1", len(got))
	}
	want := Piece{Text: "package main\n\nfunc main() {}", Span: record.Lines(3, 5), Ordinal: 0, Context: "main"}
	if got[0] != want {
		t.Errorf("got %+v, want %+v", got[0], want)
	}
}

func TestCodeNoTrailingNewline(t *testing.T) {
	got := Code("a\nb", CodeOptions{})
	if len(got) != 1 || got[0].Text != "a\nb" || got[0].Span != record.Lines(1, 2) {
		t.Fatalf("got %+v", got)
	}
}

func TestCodeSpansAndInvariants(t *testing.T) {
	src := goLikeSource(120, 25)
	opt := CodeOptions{MaxLines: 80, OverlapLines: 10, MaxChars: 4000}
	pieces := Code(src, opt)
	if len(pieces) < 10 {
		t.Fatalf("got %d pieces for %d lines, want many", len(pieces), len(sourceLines(src)))
	}
	checkPieces(t, src, pieces, opt.MaxChars)
	for i, p := range pieces {
		if n := p.Span.EndLine - p.Span.StartLine + 1; n > opt.MaxLines {
			t.Errorf("piece %d spans %d lines, over %d", i, n, opt.MaxLines)
		}
	}
}

// Windows that must end early end between functions, and the next window
// (overlap included) starts at a function or its doc comment.
func TestCodePrefersDeclarationBoundaries(t *testing.T) {
	src := goLikeSource(60, 12) // each function is ~17 lines
	lines := sourceLines(src)
	pieces := Code(src, CodeOptions{MaxLines: 100, OverlapLines: 20})
	if len(pieces) < 5 {
		t.Fatalf("got %d pieces, want several", len(pieces))
	}
	for i, p := range pieces[:len(pieces)-1] {
		if last := lines[p.Span.EndLine-1]; last != "}" {
			t.Errorf("piece %d ends with %q, want a function's closing brace", i, last)
		}
	}
	for i, p := range pieces[1:] {
		first := lines[p.Span.StartLine-1]
		if !strings.HasPrefix(first, "// F") && !strings.HasPrefix(first, "func ") {
			t.Errorf("piece %d starts with %q, want a doc comment or func", i+1, first)
		}
		prev := pieces[i]
		if p.Span.StartLine > prev.Span.EndLine {
			t.Errorf("piece %d (L%d) does not overlap piece %d (ends L%d)", i+1, p.Span.StartLine, i, prev.Span.EndLine)
		}
	}
}

// Without any boundary the cut is at the hard limit and the overlap is
// exactly OverlapLines.
func TestCodeOverlapWithoutBoundaries(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "\tx%d := %d\n", i, i)
	}
	pieces := Code(b.String(), CodeOptions{MaxLines: 200, OverlapLines: 30})
	checkPieces(t, b.String(), pieces, 0)
	for i, p := range pieces[:len(pieces)-1] {
		if n := p.Span.EndLine - p.Span.StartLine + 1; n != 200 {
			t.Errorf("piece %d spans %d lines, want 200", i, n)
		}
		if next := pieces[i+1].Span.StartLine; next != p.Span.EndLine-29 {
			t.Errorf("piece %d starts at L%d, want L%d (30 lines overlap)", i+1, next, p.Span.EndLine-29)
		}
	}
	if last := pieces[len(pieces)-1].Span.EndLine; last != 1000 {
		t.Errorf("last piece ends at L%d, want L1000", last)
	}
}

func TestCodeNegativeOverlapMeansNone(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "\tx%d := %d\n", i, i)
	}
	pieces := Code(b.String(), CodeOptions{MaxLines: 100, OverlapLines: -1})
	for i := 1; i < len(pieces); i++ {
		if pieces[i].Span.StartLine != pieces[i-1].Span.EndLine+1 {
			t.Fatalf("piece %d starts at L%d after L%d: overlap with OverlapLines<0", i, pieces[i].Span.StartLine, pieces[i-1].Span.EndLine)
		}
	}
	if len(pieces) != 5 {
		t.Errorf("got %d pieces, want 5", len(pieces))
	}
}

// A minified file is one enormous line; it must not become one giant chunk.
func TestCodeSplitsHugeLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("// header\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "var a%d=function(b){return b+%d};", i, i)
	}
	b.WriteString("\n// footer\n")
	src := b.String()
	pieces := Code(src, CodeOptions{MaxChars: 6000})
	checkPieces(t, src, pieces, 6000)
	if len(pieces) < 100 {
		t.Fatalf("got %d pieces, want the 700 KB line split into many", len(pieces))
	}
	var rebuilt strings.Builder
	for _, p := range pieces {
		if p.Span.StartLine == 2 && p.Span.EndLine == 2 {
			rebuilt.WriteString(p.Text)
			if !strings.HasSuffix(p.Text, ";") && p != pieces[len(pieces)-2] {
				t.Errorf("piece %d ends mid-statement: ...%q", p.Ordinal, p.Text[len(p.Text)-20:])
			}
		}
	}
	if rebuilt.String() != sourceLines(src)[1] {
		t.Error("the split parts of the long line do not concatenate back to it")
	}
	if pieces[0].Text != "// header" || pieces[len(pieces)-1].Text != "// footer" {
		t.Errorf("first/last pieces = %q / %q", pieces[0].Text, pieces[len(pieces)-1].Text)
	}
}

func TestCodeUnicodeSplitKeepsRunes(t *testing.T) {
	src := strings.Repeat("日本語テキスト", 3000) // one line, no spaces
	pieces := Code(src, CodeOptions{MaxChars: 1000})
	checkPieces(t, src, pieces, 1000)
	if strings.Join(texts(pieces), "") != src {
		t.Error("split pieces do not reassemble the line")
	}
}

func texts(ps []Piece) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Text
	}
	return out
}

func TestCodeDeterministic(t *testing.T) {
	src := goLikeSource(80, 20)
	a, b := Code(src, CodeOptions{}), Code(src, CodeOptions{})
	if len(a) != len(b) || samePrefix(a, b) != len(a) {
		t.Fatal("two runs on the same input differ")
	}
}

// An edit near the end must leave the earlier chunks byte-identical, so
// their text_hash matches and they are not re-embedded.
func TestCodeStableUnderEditNearEnd(t *testing.T) {
	src := goLikeSource(150, 20)
	lines := sourceLines(src)
	before := Code(src, CodeOptions{})
	at := len(lines) - 10
	// Change a body line into a strong boundary of a different length.
	edited := append(append(append([]string(nil), lines[:at]...), "}", "", "// G is new.", "func G() {"), lines[at+1:]...)
	cases := []struct {
		name string
		doc  string
		line int // first changed line, 1-based
	}{
		{"edit", strings.Join(edited, "\n") + "\n", at + 1},
		{"append", src + "\nfunc Extra() {}\n", len(lines) + 1},
		{"truncate", strings.Join(lines[:len(lines)-25], "\n") + "\n", len(lines) - 24},
	}
	lookahead := DefaultCodeOptions().MaxLines/4 + 1
	for _, tc := range cases {
		after := Code(tc.doc, CodeOptions{})
		want := 0 // pieces whose window ends before the change
		for want < len(before) && before[want].Span.EndLine+lookahead < tc.line {
			want++
		}
		if want < len(before)-3 {
			t.Fatalf("%s: test setup: only %d of %d pieces precede the change", tc.name, want, len(before))
		}
		if n := samePrefix(before, after); n < want {
			t.Errorf("%s: only %d leading pieces unchanged, want %d", tc.name, n, want)
		}
		if reflectEqual(before, after) {
			t.Errorf("%s: nothing changed", tc.name)
		}
	}
}

func reflectEqual(a, b []Piece) bool {
	return len(a) == len(b) && samePrefix(a, b) == len(a)
}

func TestCodeMaxCharsCapsWindows(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		fmt.Fprintf(&b, "\tvalue%d := compute(%q)\n", i, strings.Repeat("z", 100))
	}
	src := b.String()
	pieces := Code(src, CodeOptions{MaxLines: 200, MaxChars: 3000})
	checkPieces(t, src, pieces, 3000)
	if len(pieces) < 400*120/3000 {
		t.Errorf("got %d pieces, too few for a 3000-byte cap", len(pieces))
	}
}

func TestCodeScoreRecognisesDeclarations(t *testing.T) {
	for _, l := range []string{"func main() {", "type T struct {", "class Foo:", "def bar(x):", "pub fn f() {}",
		"impl Foo for Bar {", "export default function x() {", "const (", "var x = 1", "@decorator", "#[derive(Debug)]", "interface I {"} {
		if !isDecl(l) {
			t.Errorf("isDecl(%q) = false", l)
		}
	}
	for _, l := range []string{"funcName()", "x := 1", "typeset", "return x", "# comment", "}"} {
		if isDecl(l) {
			t.Errorf("isDecl(%q) = true", l)
		}
	}
	for _, l := range []string{"}", "};", "})", ")", "]);", "end"} {
		if !isCloser(l) {
			t.Errorf("isCloser(%q) = false", l)
		}
	}
	for _, l := range []string{"} else {", "\t}", "}()x", "endpoint"} {
		if isCloser(l) {
			t.Errorf("isCloser(%q) = true", l)
		}
	}
}

// Lines before an over-long line must not be repeated piece after piece.
func TestNoDuplicatePiecesBeforeHugeLine(t *testing.T) {
	src := "a := 1\nb := 2\nc := 3\n" + strings.Repeat("z", 5000) + "\nd := 4\n"
	for name, pieces := range map[string][]Piece{
		"code": Code(src, CodeOptions{MaxLines: 10, OverlapLines: 5, MaxChars: 1000}),
		"text": Text(src, TextOptions{MaxChars: 1000, OverlapChars: 400, MinChars: -1}),
	} {
		checkPieces(t, src, pieces, 1000)
		seen := map[int]bool{}
		for _, p := range pieces {
			if p.Span.StartLine == 1 {
				if seen[1] {
					t.Errorf("%s: lines 1-3 chunked twice", name)
				}
				seen[1] = true
			}
			if p.Span.StartLine == 2 || p.Span.StartLine == 3 {
				t.Errorf("%s: piece L%d-L%d repeats the tail before the long line", name, p.Span.StartLine, p.Span.EndLine)
			}
		}
	}
}
