package grep

import "strings"

// Cost bounds of scanning with a regular expression: one call of the
// regexp engine costs about (bytes × program instructions) steps; a call
// is given at most workPerCall of them (but at least minWindow bytes), so
// the time between two interruption checks stays bounded whatever the
// pattern and the text.
const (
	workPerCall = 50_000_000
	minWindow   = 64 << 10
	// MaxCols bounds the match ranges reported for one line.
	MaxCols = 16
)

// lineFunc receives a matching line: its bounds in the text [start, end)
// (end excludes the newline), the match ranges relative to start, and
// whether the line was too long for the pattern and was matched in pieces
// (a match across a cut is missed; a line cut by an interruption is
// reported once per part). It returns false to stop before the line.
type lineFunc func(start, end int, cols [][2]int, cut bool) bool

// scan reports the lines of text that m matches, in order, starting at
// byte offset from. It stops when emit returns false (resume at that
// line's start) or when interrupted returns true, which it asks after
// bounded units of work (resume at the returned offset: a line start, or
// inside a line too long for one unit). done reports that the text was
// scanned to its end. Every call makes progress: a unit of work is done
// before the first question.
func (m *Matcher) scan(text string, from int, emit lineFunc, interrupted func() bool) (resume int, done bool) {
	text = strings.TrimSuffix(text, "\n") // a final newline ends the last line, it starts none
	var stop bool
	pos := from
	if pos > 0 && pos < len(text) && text[pos-1] != '\n' {
		// Resuming inside a line: a long line cut by an interruption.
		start, end := lineAt(text, pos)
		if stop, resume = m.matchLong(text, start, pos, end, emit, interrupted); stop {
			return resume, false
		}
		pos = end + 1
	}
	switch {
	case pos >= len(text):
		return len(text), true
	case m.literal != "":
		resume, stop = m.scanLiteral(text, pos, emit, interrupted)
	case m.required != "":
		resume, stop = m.scanRequired(text, pos, emit, interrupted)
	default:
		resume, stop = m.scanWindows(text, pos, emit, interrupted)
	}
	if stop {
		return resume, false
	}
	return len(text), true
}

// lineAt returns the bounds of the line holding byte i.
func lineAt(text string, i int) (int, int) {
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		return start, len(text)
	}
	return start, i + end
}

func (m *Matcher) scanLiteral(text string, pos int, emit lineFunc, interrupted func() bool) (int, bool) {
	lit := m.literal
	for pos < len(text) {
		i := strings.Index(text[pos:], lit)
		if i < 0 {
			break
		}
		start, end := lineAt(text, pos+i)
		line := text[start:end]
		var cols [][2]int
		for off := pos + i - start; len(cols) < MaxCols; {
			j := strings.Index(line[off:], lit)
			if j < 0 {
				break
			}
			cols = append(cols, [2]int{off + j, off + j + len(lit)})
			off += j + len(lit)
		}
		if !emit(start, end, cols, false) {
			return start, true
		}
		pos = end + 1
		if pos < len(text) && interrupted() {
			return pos, true
		}
	}
	return len(text), false
}

// scanRequired finds the lines holding m.required and runs the regexp on
// those lines only.
func (m *Matcher) scanRequired(text string, pos int, emit lineFunc, interrupted func() bool) (int, bool) {
	for pos < len(text) {
		i := strings.Index(text[pos:], m.required)
		if i < 0 {
			break
		}
		start, end := lineAt(text, pos+i)
		if stop, resume := m.matchLine(text, start, end, emit, interrupted); stop {
			return resume, true
		}
		pos = end + 1
		if pos < len(text) && interrupted() {
			return pos, true
		}
	}
	return len(text), false
}

// window is how many bytes one regexp call may look at.
func (m *Matcher) window() int {
	return max(minWindow, workPerCall/max(m.insts, 1))
}

// scanWindows runs the regexp over the text a window of whole lines at a
// time; a line longer than a window is matched in pieces.
func (m *Matcher) scanWindows(text string, pos int, emit lineFunc, interrupted func() bool) (int, bool) {
	w := m.window()
	for first := true; pos < len(text); first = false {
		if !first && interrupted() {
			return pos, true
		}
		end := len(text)
		if end-pos > w {
			end = strings.LastIndexByte(text[pos:pos+w], '\n')
			if end < 0 { // one line longer than a window
				_, lineEnd := lineAt(text, pos)
				if stop, resume := m.matchLong(text, pos, pos, lineEnd, emit, interrupted); stop {
					return resume, true
				}
				pos = lineEnd + 1
				continue
			}
			end += pos
		}
		for pos < end {
			loc := m.re.FindStringIndex(text[pos:end])
			if loc == nil {
				break
			}
			start, lineEnd := lineAt(text, pos+loc[0])
			if stop, resume := m.matchLine(text, start, lineEnd, emit, interrupted); stop {
				return resume, true
			}
			pos = lineEnd + 1
		}
		pos = max(pos, end+1)
	}
	return len(text), false
}

// matchLine reports line [start, end) if the regexp matches it.
func (m *Matcher) matchLine(text string, start, end int, emit lineFunc, interrupted func() bool) (stop bool, resume int) {
	if end-start > m.window() {
		return m.matchLong(text, start, start, end, emit, interrupted)
	}
	locs := m.re.FindAllStringIndex(text[start:end], MaxCols)
	if locs == nil {
		return false, 0
	}
	cols := make([][2]int, len(locs))
	for i, l := range locs {
		cols[i] = [2]int{l[0], l[1]}
	}
	if !emit(start, end, cols, false) {
		return true, start
	}
	return false, 0
}

// matchLong matches line [start, end), longer than a window, from byte
// from on, in pieces of a window each cut at rune boundaries; a match
// touching a cut is dropped (it may be an artefact of the cut: an anchor,
// or a truncated match). Interrupted between pieces, it reports what it
// found so far and resumes at the next piece.
func (m *Matcher) matchLong(text string, start, from, end int, emit lineFunc, interrupted func() bool) (stop bool, resume int) {
	w := m.window()
	var cols [][2]int
	lo := from
	for lo < end && len(cols) < MaxCols {
		hi := min(end, lo+w)
		for hi < end && hi > lo+1 && !runeStart(text[hi]) {
			hi--
		}
		for _, l := range m.re.FindAllStringIndex(text[lo:hi], MaxCols-len(cols)) {
			if (l[0] == 0 && lo != start) || (l[1] == hi-lo && hi != end) {
				continue
			}
			cols = append(cols, [2]int{lo - start + l[0], lo - start + l[1]})
		}
		lo = hi
		if lo < end && interrupted() {
			if len(cols) > 0 && !emit(start, end, cols, true) {
				return true, start
			}
			return true, lo
		}
	}
	if len(cols) > 0 && !emit(start, end, cols, true) {
		return true, start
	}
	return false, 0
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
