package extract

import (
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// This file holds the line-building half of htmlConv: text and whitespace
// handling, line starts and ends, the source map, and the final assembly.

// text handles a text token that spans source lines at to last. Newlines
// in s advance the source line, up to last (callers pass a decoded &#10;
// with last == at: it is not a source line break).
func (c *htmlConv) text(s []byte, at, last int) {
	switch {
	case c.skip != "":
		return
	case c.inTitle:
		c.titleText(s, at, last)
		return
	case c.inHead:
		if isHTMLSpace(s) {
			return
		}
		c.inHead = false // text ends the head, as it does for a browser
	}
	if c.pre > 0 {
		c.preText(s, at, last)
		return
	}
	src := at
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= 0x80 {
			r, size = utf8.DecodeRune(s[i:])
		}
		i += size
		switch {
		case r == '\n':
			src = min(src+1, last)
			if c.hasText {
				c.pendingSpace, c.pendingNL = true, true
			}
			continue
		case r == ' ' || r == '\t' || r == '\f' || r == '\r' || r == 0xA0 || isControl(r):
			if c.hasText {
				c.pendingSpace = true
			}
			continue
		}
		if c.hasText && c.pendingSpace {
			if c.pendingNL && !c.inline() && !c.linkOpen {
				c.flush(true)
			} else {
				c.add(" ", src)
			}
		}
		c.pendingSpace, c.pendingNL = false, false
		c.startContent(src)
		if c.heading > 0 && c.headingStart < 0 {
			c.headingStart = len(c.cur)
		}
		if c.linkOpen && c.linkStart < 0 {
			c.linkStart = len(c.cur)
			c.decorate("[", srcmap.Drop)
		}
		c.add(string(s[i-size:i]), src)
		c.hasText = true
	}
}

// titleText collects <title> text and the source lines it is on.
func (c *htmlConv) titleText(s []byte, at, last int) {
	c.titleBuf = append(c.titleBuf, s...)
	c.titleBuf = append(c.titleBuf, ' ')
	src := at
	for _, b := range s {
		switch b {
		case '\n':
			src = min(src+1, last)
		case ' ', '\t', '\f', '\r':
		default:
			if c.titleFirst == 0 {
				c.titleFirst = src
			}
			c.titleLast = src
		}
	}
}

// isHTMLSpace reports text of ASCII whitespace only, which HTML ignores
// between elements of the head.
func isHTMLSpace(s []byte) bool {
	for _, b := range s {
		if b != ' ' && b != '\t' && b != '\n' && b != '\f' && b != '\r' {
			return false
		}
	}
	return true
}

// isControl reports a control character other than tab and newline (a
// decoded entity such as &#1;); the output has a space instead.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7F && r < 0xA0)
}

// preText appends verbatim text inside <pre>.
func (c *htmlConv) preText(s []byte, at, last int) {
	src := at
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b == '\n' {
			if c.preFresh {
				// A newline right after <pre> is not content (HTML §13.2.6.4.7).
				c.preFresh = false
				src = min(src+1, last)
				continue
			}
			c.startContent(src)
			c.flush(false)
			src = min(src+1, last)
			continue
		}
		c.preFresh = false
		c.startContent(src)
		switch {
		case b == '\r' || (b < 0x20 && b != '\t') || b == 0x7F:
			b = ' '
		case b == 0xC2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xA0: // C1 control
			b = ' '
			i++
		}
		c.cur = append(c.cur, b)
		c.curLast = max(c.curLast, src)
		c.hasText = true
	}
}

// add appends text of source line src to the current line: the file's
// text, or markup when c.decor is set.
func (c *htmlConv) add(s string, src int) {
	if c.decor {
		c.decorate(s, srcmap.Drop)
		return
	}
	c.cur = append(c.cur, s...)
	c.curLast = max(c.curLast, src)
}

// decorate appends markup that is not in the file and marks it.
func (c *htmlConv) decorate(s string, kind srcmap.Kind) {
	from := len(c.cur)
	c.cur = append(c.cur, s...)
	if n := len(c.curMarks); n > 0 && kind == srcmap.Drop && c.curMarks[n-1].Kind == srcmap.Drop && c.curMarks[n-1].To == from {
		c.curMarks[n-1].To = len(c.cur)
		return
	}
	c.curMarks = append(c.curMarks, srcmap.Mark{From: from, To: len(c.cur), Kind: kind})
}

// dropLinkBracket removes the open link's "[" from the current line.
func (c *htmlConv) dropLinkBracket() {
	at := c.linkStart
	c.cur = append(c.cur[:at], c.cur[at+1:]...)
	marks := c.curMarks[:0]
	for _, mk := range c.curMarks {
		if mk.From > at {
			mk.From--
		}
		if mk.To > at {
			mk.To--
		}
		if mk.From < mk.To || mk.Kind == srcmap.Gap {
			marks = append(marks, mk)
		}
	}
	c.curMarks = marks
	c.linkStart = -1
}

// startContent begins a fresh line (blank line and prefix first) if needed.
func (c *htmlConv) startContent(src int) {
	if len(c.cur) > 0 || c.curSrc > 0 {
		return
	}
	if c.wantBlank && len(c.lines) > 0 && c.lines[len(c.lines)-1] != "" {
		c.lines = append(c.lines, "")
		c.src = append(c.src, srcmap.Line{First: c.lastSrc, Last: c.lastSrc})
	}
	c.wantBlank = false
	c.curSrc, c.curLast = src, src
	if c.gap {
		c.curMarks = append(c.curMarks, srcmap.Mark{Kind: srcmap.Gap})
		c.gap = false
	}
	for range c.quote {
		c.decorate("> ", srcmap.Drop)
	}
	if c.prefix != "" {
		// The indentation of a nested list item stays in quotes.
		marker := strings.TrimLeft(c.prefix, " ")
		c.cur = append(c.cur, c.prefix[:len(c.prefix)-len(marker)]...)
		c.decorate(marker, srcmap.Drop)
		c.prefix = ""
	} else if len(c.lists) > 0 && c.pre == 0 {
		// Continuation line of a list item.
		c.cur = append(c.cur, strings.Repeat("  ", len(c.lists))...)
	}
}

// flush ends the current line. Outside <pre> (trim) trailing blanks go.
func (c *htmlConv) flush(trim bool) {
	if c.linkStart >= 0 {
		// A line break inside a link: drop its '[' rather than leave it open.
		c.dropLinkBracket()
	}
	line := string(c.cur)
	if trim {
		line = strings.TrimRight(line, " \t")
	}
	if c.curSrc == 0 {
		c.curSrc = max(c.lastSrc, 1)
	}
	if c.heading > 0 {
		c.headingStart = -1
	}
	var marks []srcmap.Mark
	for _, mk := range c.curMarks {
		if mk.To = min(mk.To, len(line)); mk.From < mk.To || (mk.Kind == srcmap.Gap && mk.From <= len(line)) {
			marks = append(marks, mk)
		}
	}
	last := max(c.curLast, c.curSrc)
	c.lines = append(c.lines, line)
	c.src = append(c.src, srcmap.Line{First: c.curSrc, Last: last, Marks: marks})
	c.lastSrc = last
	c.cur, c.curSrc, c.curLast, c.curMarks, c.hasText = c.cur[:0], 0, 0, c.curMarks[:0], false
	c.pendingSpace, c.pendingNL = false, false
}

// breakLine ends the current line if it has content.
func (c *htmlConv) breakLine() {
	if c.hasText {
		c.flush(true)
		return
	}
	// A prefix alone (e.g. an empty cell separator) is not worth a line.
	c.linkStart = -1
	for _, mk := range c.curMarks {
		if mk.Kind == srcmap.Gap {
			c.gap = true // still owed to the next line
		}
	}
	c.cur, c.curSrc, c.curLast, c.curMarks = c.cur[:0], 0, 0, c.curMarks[:0]
	c.pendingSpace, c.pendingNL = false, false
}

// paragraph ends the current line and asks for a blank line before the next.
func (c *htmlConv) paragraph() {
	c.breakLine()
	c.wantBlank = true
}

// space separates inline content where a block boundary was suppressed.
func (c *htmlConv) space() {
	if c.hasText {
		c.pendingSpace = true
	}
}

// emit writes a line of markup of its own (a fence, a rule); a pending
// list marker goes before it.
func (c *htmlConv) emit(s string, src int) {
	c.breakLine()
	c.startContent(src)
	c.decorate(s, srcmap.Drop)
	c.hasText = true
	c.flush(false)
}

func (c *htmlConv) finish() (string, srcmap.Map, string) {
	c.linkOpen = false
	c.breakLine()
	for len(c.lines) > 0 && c.lines[len(c.lines)-1] == "" {
		c.lines = c.lines[:len(c.lines)-1]
		c.src = c.src[:len(c.src)-1]
	}
	if c.src == nil {
		c.src = srcmap.Map{}
	}
	if len(c.lines) == 0 {
		return "", c.src, c.title
	}
	n := len(c.lines)
	for _, l := range c.lines {
		n += len(l)
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range c.lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String(), c.src, c.title
}
