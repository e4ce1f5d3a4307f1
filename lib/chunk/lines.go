package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// lineIndex locates the lines of a text. Line indexes are 0-based here;
// spans add one.
type lineIndex struct {
	text  string
	start []int // byte offset where each line starts
	// defs[i] is line i's defined name once defsKnown[i] (see definedName).
	defs      []string
	defsKnown []bool
}

func newLineIndex(text string) *lineIndex {
	n := strings.Count(text, "\n")
	if text != "" && text[len(text)-1] != '\n' {
		n++
	}
	start := make([]int, 0, n)
	for off := 0; off < len(text); {
		start = append(start, off)
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return &lineIndex{text: text, start: start}
}

func (x *lineIndex) n() int { return len(x.start) }

// end is the offset just past line i's content (before its "\n").
func (x *lineIndex) end(i int) int {
	if i+1 < len(x.start) {
		return x.start[i+1] - 1
	}
	if t := x.text; t != "" && t[len(t)-1] == '\n' {
		return len(t) - 1
	}
	return len(x.text)
}

func (x *lineIndex) line(i int) string { return x.text[x.start[i]:x.end(i)] }

// size is the byte length of lines [s, e) joined by "\n".
func (x *lineIndex) size(s, e int) int {
	if e <= s {
		return 0
	}
	return x.end(e-1) - x.start[s]
}

// blank reports whether line i holds only whitespace (or nothing).
func (x *lineIndex) blank(i int) bool { return isBlank(x.line(i)) }

// isBlank reports whether s is only Unicode whitespace.
func isBlank(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c] < clsSpace {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return false
		}
		i += size
	}
	return true
}

// fitLines returns the largest e in [s, limit] with size(s, e) <= maxChars.
func (x *lineIndex) fitLines(s, limit, maxChars int) int {
	if x.size(s, limit) <= maxChars {
		return limit
	}
	e := s
	for e < limit && x.end(e)-x.start[s] <= maxChars {
		e++
	}
	return e
}

// appendPiece appends lines [s, e) with blank edge lines trimmed; it
// appends nothing when they are all blank.
func (x *lineIndex) appendPiece(out []Piece, s, e int) []Piece {
	for s < e && x.blank(s) {
		s++
	}
	for e > s && x.blank(e-1) {
		e--
	}
	if s >= e {
		return out
	}
	return append(out, Piece{
		Text:    x.text[x.start[s]:x.end(e-1)],
		Span:    record.Lines(s+1, e),
		Ordinal: len(out),
	})
}
