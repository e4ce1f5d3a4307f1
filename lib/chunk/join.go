package chunk

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Join rebuilds, from the pieces Code or Text made of it (in ordinal
// order, with their line spans), the text they were cut from: each line
// from the pieces covering it, a line no piece covers as empty (the
// chunkers leave only blank lines uncovered), without a final "\n". ok is
// false when the pieces cannot tell what a line held: a piece whose text
// does not have its span's line count, pieces that disagree on a line,
// several one-line pieces of the same line (the parts of a long line), or
// a span that is not of lines.
//
// The result equals the original text when its uncovered lines were
// empty and it did not end in "\n" (or equals it minus that "\n"); callers
// that must be exact compare a hash of it with the representation's.
func Join(pieces []Piece) (string, bool) {
	n := 0
	for _, p := range pieces {
		if p.Span.Kind != record.SpanLines || p.Span.StartLine < 1 || p.Span.EndLine < p.Span.StartLine {
			return "", false
		}
		n = max(n, p.Span.EndLine)
	}
	lines := make([]string, n)
	set := make([]bool, n)
	whole := make([]bool, n) // a one-line piece covered the line
	for _, p := range pieces {
		i := p.Span.StartLine - 1
		if p.Span.StartLine == p.Span.EndLine {
			if whole[i] {
				return "", false // two one-line pieces: parts of a long line
			}
			whole[i] = true
		}
		text := p.Text
		for k := p.Span.StartLine; k <= p.Span.EndLine; k++ {
			ln, rest, found := strings.Cut(text, "\n")
			if found == (k == p.Span.EndLine) {
				return "", false // more or fewer lines than the span
			}
			if set[i] && lines[i] != ln {
				return "", false
			}
			lines[i], set[i] = ln, true
			text = rest
			i++
		}
	}
	return strings.Join(lines, "\n"), true
}
