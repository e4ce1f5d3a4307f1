package chunk

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// Text splits prose, markdown or data into chunks of whole lines of at most
// opt.MaxChars bytes. A chunk ends, by preference and within the second
// half of its window, before a markdown heading, then after a blank line
// (a paragraph end, outside fenced code), then after a sentence end or
// before a list item; ties go to the latest line. The next chunk repeats
// the previous one's last whole lines up to opt.OverlapChars bytes, except
// after a break before a heading, where a new section starts clean.
// A remainder shorter than opt.MinChars is merged into the chunk before it.
// A line longer than MaxChars alone is split inside the line (at a sentence
// end or space) into pieces that all cite that line.
func Text(text string, opt TextOptions) []Piece {
	opt = opt.normalized()
	x := newLineIndex(text)
	n := x.n()
	last := n - 1 // last non-blank line
	for last >= 0 && x.blank(last) {
		last--
	}
	var fence []bool
	var out []Piece
	for s := 0; s <= last; {
		for x.blank(s) {
			s++
		}
		e := x.fitLines(s, last+1, opt.MaxChars)
		if e == s {
			var partStart int
			out, partStart = x.appendSplitLine(out, s, opt.MaxChars, opt.OverlapChars, false)
			s++
			if s <= last && partStart >= 0 && x.end(last)-x.start[s] < opt.MinChars {
				// Merge the short remainder into the line's last part.
				p := &out[len(out)-1]
				p.Text = x.text[partStart:x.end(last)]
				p.Span.EndLine = last + 1
				break
			}
			continue
		}
		b, heading := last+1, false
		if e <= last {
			if fence == nil {
				fence = x.fences()
			}
			b, heading = x.textBreak(s, e, opt.MaxChars/2, fence)
			if x.end(last)-x.start[b] < opt.MinChars {
				b = last + 1
			}
		}
		out = x.appendPiece(out, s, b)
		if b > last {
			break
		}
		next := b
		if !heading {
			next = x.textOverlapStart(s, b, opt.OverlapChars)
		}
		if x.size(next, b+1) > opt.MaxChars {
			// Line b does not fit after the overlap: repeating the overlap
			// would only duplicate this piece's tail.
			next = b
		}
		s = next
	}
	if fence == nil {
		fence = x.fences()
	}
	x.headingContext(out, fence)
	return out
}

// textBreak picks where the window [s, e) ends: the best-scoring boundary
// b with size(s, b) >= minSize, else e. It reports whether b is a heading.
func (x *lineIndex) textBreak(s, e, minSize int, fence []bool) (int, bool) {
	best, bestScore := e, 0
	for b := e; b > s && x.size(s, b) >= minSize; b-- {
		if sc := x.textScore(b, fence); sc > bestScore {
			best, bestScore = b, sc
			if sc == 3 {
				break
			}
		}
	}
	return best, bestScore == 3
}

// textScore rates a chunk boundary just before line b (0 < b < n).
func (x *lineIndex) textScore(b int, fence []bool) int {
	l := x.line(b)
	prev := x.line(b - 1)
	if !fence[b] && (isHeading(l) || x.isSetextHeading(b)) {
		return 3
	}
	if isBlank(prev) {
		if fence[b-1] {
			return 1
		}
		return 2
	}
	if !fence[b] && isListItem(l) {
		return 1
	}
	if t := strings.TrimRight(prev, " \t"); t != "" {
		switch t[len(t)-1] {
		case '.', '!', '?', ':', ';':
			return 1
		}
	}
	return 0
}

// textOverlapStart returns where the chunk after [s, b) starts: at the
// earliest line c > s whose lines [c, b) fit in overlap bytes, else b.
func (x *lineIndex) textOverlapStart(s, b, overlap int) int {
	c := b
	for c-1 > s && x.size(c-1, b) <= overlap {
		c--
	}
	return c
}

// fences marks the lines of fenced code blocks (``` or ~~~), fences included.
func (x *lineIndex) fences() []bool {
	in := make([]bool, x.n())
	open := ""
	for i := range in {
		l := x.line(i)
		f := textsplit.FenceMarker(l)
		switch {
		case open == "" && f != "":
			open = f
			in[i] = true
		case open != "":
			in[i] = true
			if f != "" && strings.HasPrefix(f, open) && strings.TrimSpace(l)[len(f):] == "" {
				open = ""
			}
		}
	}
	return in
}

// isHeading reports an ATX heading: up to 3 spaces, 1–6 '#', then a space,
// a tab or the end of the line.
func isHeading(l string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

// isSetextHeading reports a one-line paragraph at b underlined by === or ---.
func (x *lineIndex) isSetextHeading(b int) bool {
	if b+1 >= x.n() || x.blank(b) || (b > 0 && !x.blank(b-1)) {
		return false
	}
	u := strings.TrimSpace(x.line(b + 1))
	return len(u) >= 3 && (strings.Trim(u, "=") == "" || strings.Trim(u, "-") == "")
}

// isListItem reports a markdown list item: "- ", "* ", "+ " or "12. ".
func isListItem(l string) bool {
	t := strings.TrimLeft(l, " \t")
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' {
		return true
	}
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(t) && (t[n] == '.' || t[n] == ')') && t[n+1] == ' '
}
