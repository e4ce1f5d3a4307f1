package chunk

import (
	"strings"
	"unicode/utf8"
)

// maxContext caps a piece's Context in bytes.
const maxContext = 300

// headingContext sets each piece's Context to the trail of headings the
// piece sits under, outermost first and joined by " > ": the headings in
// force at its first line, that line's own heading included. Headings are
// ATX ("## Title") and setext (a line underlined by === or ---) outside
// fenced code. Pieces must be in text order.
func (x *lineIndex) headingContext(pieces []Piece, fence []bool) {
	var trail []heading
	line := 0
	for i := range pieces {
		first := pieces[i].Span.StartLine - 1
		for ; line <= first && line < x.n(); line++ {
			if fence[line] {
				continue
			}
			if h, ok := x.headingAt(line); ok {
				for len(trail) > 0 && trail[len(trail)-1].level >= h.level {
					trail = trail[:len(trail)-1]
				}
				trail = append(trail, h)
			}
		}
		pieces[i].Context = joinTrail(trail)
	}
}

type heading struct {
	level int
	text  string
}

// headingAt returns the heading on line i, if any.
func (x *lineIndex) headingAt(i int) (heading, bool) {
	l := x.line(i)
	if isHeading(l) {
		t := strings.TrimLeft(l, " ")
		n := 0
		for n < len(t) && t[n] == '#' {
			n++
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
		return heading{level: n, text: text}, text != ""
	}
	if x.isSetextHeading(i) {
		level := 1
		if strings.HasPrefix(strings.TrimSpace(x.line(i+1)), "-") {
			level = 2
		}
		return heading{level: level, text: strings.TrimSpace(l)}, true
	}
	return heading{}, false
}

func joinTrail(trail []heading) string {
	var b strings.Builder
	for _, h := range trail {
		if b.Len() > 0 {
			b.WriteString(" > ")
		}
		b.WriteString(h.text)
	}
	s := b.String()
	if len(s) > maxContext {
		cut := maxContext
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}
