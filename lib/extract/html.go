package extract

import (
	"bytes"
	"strconv"
	"strings"

	"golang.org/x/net/html"

	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// htmlToText converts normalised HTML to markdown-ish text in one streaming
// pass over the tokenizer (linear time, no tree, so malformed markup cannot
// blow up). It returns the text, the line map and the page title.
//
// Rendering: script, style, noscript, template, svg, math, iframe, object,
// select and the rest of <head> (except <title>) are dropped; <title> and
// h1–h6 become "#" headings; list items "- " or "N. "; <pre> a fenced block
// kept verbatim; table rows one line with cells joined by " | "; absolute
// links "[text](url)"; images their alt text; block elements are separated
// by a blank line. Outside <pre>, whitespace collapses to one space, but a
// newline in running text is kept as a line break (a markdown soft break)
// so representation lines stay close to source lines.
//
// The map names, for every output line, the source lines its text came
// from and the bytes the rendering added (markers, brackets, URLs, alt
// text, fences), so that a quote of the output reads as the file does.
func htmlToText(src string) (string, srcmap.Map, string) {
	c := &htmlConv{linkStart: -1, headingStart: -1, titleLine: -1}
	z := html.NewTokenizer(strings.NewReader(src))
	line := 1
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		// Count newlines in the raw bytes before Text/TagName may rewrite them.
		at := line
		raw := z.Raw()
		breaks := bytes.Count(raw, nl)
		line += breaks
		switch tt {
		case html.TextToken:
			if bytes.IndexByte(raw, '&') < 0 {
				c.text(z.Text(), at, line)
				break
			}
			raw = bytes.Clone(raw)
			if t := z.Text(); bytes.Count(t, nl) == breaks {
				c.text(t, at, line)
				break
			}
			// A decoded &#10; is not a source line break: decode each
			// source line alone so text keeps its line.
			for k, seg := range bytes.Split(raw, nl) {
				if k > 0 {
					c.text(nl, at+k-1, at+k)
				}
				c.text([]byte(html.UnescapeString(string(seg))), at+k, at+k)
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			var attrs map[string]string
			if hasAttr && wantsAttrs(string(name)) {
				attrs = readAttrs(z)
			}
			c.start(string(name), tt == html.SelfClosingTagToken, attrs, at)
		case html.EndTagToken:
			name, _ := z.TagName()
			c.end(string(name), at)
		}
	}
	return c.finish()
}

var nl = []byte{'\n'}

func wantsAttrs(name string) bool { return name == "a" || name == "img" || name == "ol" }

func readAttrs(z *html.Tokenizer) map[string]string {
	m := make(map[string]string, 2)
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "href", "alt", "start":
			if _, dup := m[string(k)]; !dup {
				m[string(k)] = string(v)
			}
		}
		if !more {
			return m
		}
	}
}

// Textless are the elements whose content is not document text (scripts,
// styles, fallbacks, embedded graphics and widgets): the HTML text leaves
// it out, and so does a reader checking a citation (lib/cite).
var Textless = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "math": true, "iframe": true, "object": true, "select": true,
	"noembed": true, "noframes": true, "canvas": true, "datalist": true,
}

// skipTags hold content that is not document text.
var skipTags = Textless

// headTags may appear in <head>; any other start tag ends the head.
var headTags = map[string]bool{
	"title": true, "meta": true, "link": true, "base": true, "style": true,
	"script": true, "noscript": true, "template": true,
}

// blockTags are separated from their surroundings by a blank line.
var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true,
	"footer": true, "nav": true, "aside": true, "main": true, "figure": true,
	"form": true, "fieldset": true, "address": true, "details": true,
	"dl": true, "ul": true, "ol": true, "table": true, "body": true,
	"center": true, "hgroup": true, "menu": true, "search": true,
}

// lineTags start a new line without a blank line.
var lineTags = map[string]bool{
	"dt": true, "dd": true, "caption": true, "figcaption": true,
	"summary": true, "legend": true, "option": true,
}

type list struct {
	ordered bool
	n       int
}

type htmlConv struct {
	lines []string
	src   srcmap.Map // one entry per line

	cur      []byte        // line being built
	curSrc   int           // source line of cur's first content
	curLast  int           // source line of cur's last content
	curMarks []srcmap.Mark // markup added to cur
	hasText  bool          // cur holds text, not just a prefix
	prefix   string        // written before the next content on a fresh line
	decor    bool          // text being added is not the file's text (alt)
	gap      bool          // source text was left out before the next content

	pendingSpace bool // collapsible whitespace since the last text
	pendingNL    bool // ... and it contained a newline
	wantBlank    bool // a blank line goes before the next content
	lastSrc      int  // source line of the last flushed line

	skip      string // tag whose content is being dropped
	skipDepth int
	inHead    bool
	pre       int // open <pre>/<xmp>/<listing>/<plaintext>
	preFresh  bool
	quote     int // open <blockquote>
	lists     []list
	cell      int // open <td>/<th>
	rowCells  int // cells seen in the current row

	heading      int // level of the open heading, 0 if none
	headingStart int // index in cur where the heading text begins

	inTitle    bool
	titleBuf   []byte
	titleFirst int // source lines of the title's text
	titleLast  int
	titleLine  int // index of the title's line in lines, -1 if none
	title      string
	h1Seen     bool
	dropH1     string // an h1 equal to this (the emitted <title>) is not repeated

	linkHref  string // absolute href of the open <a>
	linkOpen  bool
	linkStart int // index of '[' in cur, or -1
}

// closesHeading reports whether a start tag cannot be inside a heading.
func closesHeading(name string) bool {
	if len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6' {
		return true
	}
	switch name {
	case "li", "tr", "pre", "blockquote", "hr", "xmp", "listing", "plaintext":
		return true
	}
	return blockTags[name]
}

// inline reports whether block structure must not break the current line.
func (c *htmlConv) inline() bool { return c.heading > 0 || c.cell > 0 || c.inTitle }

func (c *htmlConv) start(name string, selfClosing bool, attrs map[string]string, at int) {
	if c.skip != "" {
		if name == c.skip && !selfClosing {
			c.skipDepth++
		}
		return
	}
	if c.inHead && !headTags[name] {
		c.inHead = false
	}
	if skipTags[name] {
		if !selfClosing {
			c.skip, c.skipDepth = name, 1
		}
		return
	}
	if c.pre > 0 {
		if name == "br" {
			c.preText([]byte{'\n'}, at, at)
		}
		return
	}
	if c.heading > 0 && c.cell == 0 && closesHeading(name) {
		// Headings hold phrasing content only: a block means the end tag
		// was omitted, so end the heading rather than swallow the page.
		c.endHeading()
	}
	switch {
	case name == "head":
		c.inHead = true
	case name == "title":
		if !selfClosing {
			c.inTitle = true
			c.titleBuf = c.titleBuf[:0]
			c.titleFirst, c.titleLast = 0, 0
		}
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		if c.inline() {
			c.space()
			return
		}
		c.paragraph()
		c.heading = int(name[1] - '0')
		c.prefix = strings.Repeat("#", c.heading) + " "
		c.headingStart = -1
	case name == "pre" || name == "xmp" || name == "listing" || name == "plaintext":
		if selfClosing {
			return
		}
		c.paragraph()
		c.emit("```", at)
		c.pre++
		c.preFresh = true
	case name == "br":
		if c.inline() {
			c.space()
			return
		}
		c.breakLine()
	case name == "hr":
		if c.inline() {
			return
		}
		c.paragraph()
		c.emit("---", at)
		c.paragraph()
	case name == "li":
		c.breakLine()
		indent := strings.Repeat("  ", max(len(c.lists)-1, 0))
		marker := "- "
		if n := len(c.lists); n > 0 && c.lists[n-1].ordered {
			c.lists[n-1].n++
			marker = strconv.Itoa(c.lists[n-1].n) + ". "
		}
		c.prefix = indent + marker
	case name == "ul" || name == "ol" || name == "menu":
		l := list{ordered: name == "ol"}
		if l.ordered {
			l.n = 0
			if v, err := strconv.Atoi(strings.TrimSpace(attrs["start"])); err == nil && v > -1e6 && v < 1e6 {
				l.n = v - 1
			}
		}
		c.lists = append(c.lists, l)
		if len(c.lists) == 1 {
			c.paragraph()
		} else {
			c.breakLine()
		}
	case name == "tr":
		c.breakLine()
		c.rowCells, c.cell = 0, 0
	case name == "td" || name == "th":
		// </td> may be omitted: a new cell ends the previous one.
		c.cell = 1
		if c.rowCells > 0 {
			c.startContent(at)
			c.decorate(" | ", srcmap.Sep)
			c.pendingSpace, c.pendingNL = false, false
		}
		c.rowCells++
	case name == "blockquote":
		c.paragraph()
		c.quote++
	case name == "a":
		if href := cleanURL(attrs["href"]); isAbsoluteURL(href) && !c.linkOpen {
			c.linkOpen, c.linkHref, c.linkStart = true, href, -1
		}
	case name == "img":
		if alt := strings.TrimSpace(attrs["alt"]); alt != "" {
			// The alt text is an attribute, not the page's text.
			c.decor = true
			c.text([]byte(alt), at, at)
			c.decor = false
		}
	case blockTags[name]:
		if c.inline() {
			c.space()
			return
		}
		c.paragraph()
	case lineTags[name]:
		if c.inline() {
			c.space()
			return
		}
		c.breakLine()
	}
}

func (c *htmlConv) end(name string, at int) {
	if c.skip != "" {
		switch {
		case name == c.skip:
			if c.skipDepth--; c.skipDepth == 0 {
				c.skip = ""
			}
		case name == "body" || name == "html":
			// An unclosed <svg>, <template>, ... ends with the document.
			c.skip, c.skipDepth = "", 0
		}
		return
	}
	if c.pre > 0 && name != "pre" && name != "xmp" && name != "listing" {
		return
	}
	switch {
	case name == "head":
		c.inHead = false
	case name == "title":
		if c.inTitle {
			c.inTitle = false
			c.endTitle(at)
		}
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		if c.heading > 0 {
			c.endHeading()
		}
	case name == "pre" || name == "xmp" || name == "listing":
		if c.pre == 0 {
			return
		}
		if len(c.cur) > 0 {
			c.flush(false)
		}
		c.emit("```", at) // still inside: no list indentation
		c.pre--
		c.paragraph()
	case name == "ul" || name == "ol" || name == "menu":
		if n := len(c.lists); n > 0 {
			c.lists = c.lists[:n-1]
		}
		c.prefix = "" // the marker of an empty last item
		if len(c.lists) == 0 {
			c.paragraph()
		} else {
			c.breakLine()
		}
	case name == "td" || name == "th":
		c.cell = 0
	case name == "tr" || name == "table":
		c.cell = 0
		if name == "table" {
			c.paragraph()
		} else {
			c.breakLine()
		}
	case name == "blockquote":
		if c.quote > 0 {
			c.paragraph()
			c.quote--
		}
	case name == "a":
		c.endLink()
	case blockTags[name]:
		if c.inline() {
			c.space()
			return
		}
		c.paragraph()
	case lineTags[name]:
		if !c.inline() {
			c.breakLine()
		}
	}
}

// endTitle writes the page title as a level-1 heading; a later <title>
// (misplaced markup) is written as a paragraph.
func (c *htmlConv) endTitle(at int) {
	t := cleanTitle(sanitize(string(c.titleBuf)))
	if t == "" {
		return
	}
	c.paragraph()
	c.startContent(max(c.titleFirst, 1))
	if c.title == "" {
		c.title = t
		c.dropH1 = t
		c.titleLine = len(c.lines)
		c.decorate("# ", srcmap.Drop)
	}
	c.cur = append(c.cur, t...)
	c.curLast = max(c.titleLast, c.curSrc)
	c.hasText = true
	c.flush(false)
	c.paragraph()
}

func (c *htmlConv) endHeading() {
	level := c.heading
	c.heading = 0
	c.prefix = ""
	if c.headingStart >= 0 && level == 1 && !c.h1Seen {
		c.h1Seen = true
		t := cleanTitle(string(c.cur[c.headingStart:]))
		if c.title == "" {
			c.title = t
		} else if t == c.dropH1 {
			// The page title was already emitted as a heading. Right after
			// it, the file reads the same without the h1 (the title, then
			// the h1's equal text); otherwise a quote across the omission
			// shows an elision.
			c.gap = len(c.curMarks) != 1 || !c.lastLineIs(c.titleLine)
			c.cur, c.curMarks, c.hasText = c.cur[:0], c.curMarks[:0], false
		}
	}
	c.paragraph()
}

// lastLineIs reports whether line i is the last non-blank line written.
func (c *htmlConv) lastLineIs(i int) bool {
	n := len(c.lines)
	for n > 0 && c.lines[n-1] == "" {
		n--
	}
	return i >= 0 && n == i+1
}

func (c *htmlConv) endLink() {
	if !c.linkOpen {
		return
	}
	c.linkOpen = false
	if c.linkStart < 0 {
		return
	}
	label := string(c.cur[c.linkStart+1:])
	if label == c.linkHref || label == strings.TrimPrefix(strings.TrimPrefix(c.linkHref, "https://"), "http://") {
		c.dropLinkBracket()
	} else {
		c.decorate("]("+c.linkHref+")", srcmap.Drop)
	}
	c.linkStart = -1
}

// cleanURL removes the whitespace URL parsers ignore (a newline kept in
// the output would break the line map) and control characters.
func cleanURL(s string) string {
	s = sanitize(s)
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return strings.TrimSpace(s)
}

func isAbsoluteURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}
