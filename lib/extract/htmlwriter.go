package extract

import (
	"strings"
	"unicode/utf8"
)

// This file holds the line-building half of htmlConv: text and whitespace
// handling, line starts and ends, and the final assembly.

// text handles a text token that spans source lines at to last. Newlines
// in the decoded text advance the line, up to last (a decoded &#10; is not
// a source line break).
func (c *htmlConv) text(s []byte, at, last int) {
	switch {
	case c.skip != "":
		return
	case c.inTitle:
		c.titleBuf = append(c.titleBuf, s...)
		c.titleBuf = append(c.titleBuf, ' ')
		return
	case c.inHead:
		return
	case c.pre > 0:
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
		switch r {
		case '\n':
			src = min(src+1, last)
			if c.hasText {
				c.pendingSpace, c.pendingNL = true, true
			}
			continue
		case ' ', '\t', '\f', '\r', 0xA0:
			if c.hasText {
				c.pendingSpace = true
			}
			continue
		}
		if c.hasText && c.pendingSpace {
			if c.pendingNL && !c.inline() && !c.linkOpen {
				c.flush(true)
			} else {
				c.cur = append(c.cur, ' ')
			}
		}
		c.pendingSpace, c.pendingNL = false, false
		c.startContent(src)
		if c.heading > 0 && c.headingStart < 0 {
			c.headingStart = len(c.cur)
		}
		if c.linkOpen && c.linkStart < 0 {
			c.linkStart = len(c.cur)
			c.cur = append(c.cur, '[')
		}
		c.cur = append(c.cur, s[i-size:i]...)
		c.hasText = true
	}
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
		c.cur = append(c.cur, b)
		c.hasText = true
	}
}

// startContent begins a fresh line (blank line and prefix first) if needed.
func (c *htmlConv) startContent(src int) {
	if len(c.cur) > 0 || c.curSrc > 0 {
		return
	}
	if c.wantBlank && len(c.lines) > 0 && c.lines[len(c.lines)-1] != "" {
		c.lines = append(c.lines, "")
		c.lineMap = append(c.lineMap, c.lastSrc)
	}
	c.wantBlank = false
	c.curSrc = src
	for range c.quote {
		c.cur = append(c.cur, "> "...)
	}
	if c.prefix != "" {
		c.cur = append(c.cur, c.prefix...)
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
		c.cur = append(c.cur[:c.linkStart], c.cur[c.linkStart+1:]...)
		c.linkStart = -1
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
	c.lines = append(c.lines, line)
	c.lineMap = append(c.lineMap, c.curSrc)
	c.lastSrc = c.curSrc
	c.cur, c.curSrc, c.hasText = c.cur[:0], 0, false
	c.pendingSpace, c.pendingNL = false, false
}

// breakLine ends the current line if it has content.
func (c *htmlConv) breakLine() {
	if c.hasText {
		c.flush(true)
		return
	}
	// A prefix alone (e.g. an empty cell separator) is not worth a line.
	if c.linkStart >= 0 {
		c.linkStart = -1
	}
	c.cur, c.curSrc = c.cur[:0], 0
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

// emit writes a whole line of its own (a fence, a rule, the title); a
// pending list marker goes before it.
func (c *htmlConv) emit(s string, src int) {
	c.breakLine()
	c.startContent(src)
	c.cur = append(c.cur, s...)
	c.hasText = true
	c.flush(false)
}

func (c *htmlConv) finish() (string, []int, string) {
	c.linkOpen = false
	c.breakLine()
	for len(c.lines) > 0 && c.lines[len(c.lines)-1] == "" {
		c.lines = c.lines[:len(c.lines)-1]
		c.lineMap = c.lineMap[:len(c.lineMap)-1]
	}
	if c.lineMap == nil {
		c.lineMap = []int{}
	}
	if len(c.lines) == 0 {
		return "", c.lineMap, c.title
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
	return sanitize(b.String()), c.lineMap, c.title
}
