package chunk

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// sourceLines splits text into lines the way the package counts them.
func sourceLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// checkPieces asserts the invariants every chunking result must hold.
// maxLen bounds the length of a piece (0: no bound).
func checkPieces(t testing.TB, text string, pieces []Piece, maxLen int) {
	t.Helper()
	lines := sourceLines(text)
	covered := make([]bool, len(lines))
	prevStart := 0
	for i, p := range pieces {
		if p.Ordinal != i {
			t.Fatalf("piece %d has ordinal %d", i, p.Ordinal)
		}
		sp := p.Span
		if sp.Kind != record.SpanLines || sp.StartLine < 1 || sp.EndLine < sp.StartLine || sp.EndLine > len(lines) {
			t.Fatalf("piece %d: bad span %+v for %d lines", i, sp, len(lines))
		}
		if sp.StartLine < prevStart {
			t.Fatalf("piece %d starts at L%d, before the previous piece (L%d)", i, sp.StartLine, prevStart)
		}
		prevStart = sp.StartLine
		if strings.TrimSpace(p.Text) == "" {
			t.Fatalf("piece %d is blank: %q", i, p.Text)
		}
		if !utf8.ValidString(p.Text) && utf8.ValidString(text) {
			t.Fatalf("piece %d is not valid UTF-8", i)
		}
		joined := strings.Join(lines[sp.StartLine-1:sp.EndLine], "\n")
		if p.Text != joined {
			// Only a split long line may differ: its text lies inside the
			// span's lines.
			if !strings.Contains(joined, p.Text) {
				t.Fatalf("piece %d text is not within L%d-L%d:\n got %q\nspan %q", i, sp.StartLine, sp.EndLine, trunc(p.Text), trunc(joined))
			}
		} else if isBlank(lines[sp.StartLine-1]) || isBlank(lines[sp.EndLine-1]) {
			t.Fatalf("piece %d starts or ends with a blank line: L%d-L%d", i, sp.StartLine, sp.EndLine)
		}
		if maxLen > 0 && len(p.Text) > maxLen && utf8.RuneCountInString(p.Text) > 1 {
			t.Fatalf("piece %d is %d bytes, over %d", i, len(p.Text), maxLen)
		}
		for l := sp.StartLine; l <= sp.EndLine; l++ {
			covered[l-1] = true
		}
	}
	for i, l := range lines {
		if !covered[i] && !isBlank(l) {
			t.Fatalf("line %d (%q) is in no piece", i+1, trunc(l))
		}
	}
}

func trunc(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// goLikeSource returns n top-level functions of bodyLines lines each, with
// doc comments, separated by blank lines.
func goLikeSource(n, bodyLines int) string {
	var b strings.Builder
	b.WriteString("package demo\n\nimport \"fmt\"\n")
	for i := range n {
		fmt.Fprintf(&b, "\n// F%d prints its number.\nfunc F%d(x int) int {\n", i, i)
		for j := range bodyLines {
			if j > 0 && j%7 == 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "\tx += %d * %d // step\n", i, j)
		}
		b.WriteString("\tfmt.Println(x)\n\treturn x\n}\n")
	}
	return b.String()
}

// markdownDoc returns sections sections, each a heading and paras paragraphs.
func markdownDoc(sections, paras int) string {
	var b strings.Builder
	b.WriteString("# Manual\n\nIntro paragraph.\n")
	for i := range sections {
		fmt.Fprintf(&b, "\n## Section %d\n", i)
		for j := range paras {
			fmt.Fprintf(&b, "\nParagraph %d.%d explains one thing about the system in plain words.\n", i, j)
			b.WriteString("It goes on for a second line so that paragraphs span lines.\n")
			b.WriteString("A third line closes it with a full stop.\n")
		}
	}
	return b.String()
}

// samePrefix returns how many leading pieces of a and b are identical.
func samePrefix(a, b []Piece) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
