package pdf

import (
	"math"
	"strings"
)

// textOut lays glyph runs out as lines of text. A run on a new baseline
// starts a new line; a run on the same baseline after a gap wider than a
// fifth of the font size gets a space.
type textOut struct {
	b       strings.Builder
	max     int
	started bool
	lastY   float64 // baseline of the last run
	endX    float64 // where the last run ended
	size    float64 // font size of the last run
}

// add appends text shown from (x, y) to endX at font size size.
func (o *textOut) add(text string, x, y, endX, size float64) {
	if text == "" || o.b.Len() >= o.max {
		return
	}
	if size <= 0 || math.IsNaN(size) {
		size = 1
	}
	if o.started {
		ref := math.Max(size, o.size)
		switch {
		case math.Abs(y-o.lastY) > 0.5*ref:
			o.b.WriteByte('\n')
		case x-o.endX > 0.2*ref || o.endX-x > 2*ref:
			if !endsSpace(o.b.String()) && !strings.HasPrefix(text, " ") {
				o.b.WriteByte(' ')
			}
		}
	}
	o.started = true
	o.b.WriteString(text)
	o.lastY, o.endX, o.size = y, endX, size
}

// newline forces a line break (end of a form or page region).
func (o *textOut) newline() {
	if o.started {
		o.b.WriteByte('\n')
		o.started = false
	}
}

func endsSpace(s string) bool {
	return s == "" || strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\n")
}

func (o *textOut) String() string {
	s := o.b.String()
	if len(s) > o.max {
		s = s[:o.max]
	}
	return s
}
