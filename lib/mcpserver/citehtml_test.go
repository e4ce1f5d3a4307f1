package mcpserver

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// addHTML writes a random page: documentation-shaped or hostile markup,
// sometimes minified onto one line, with CRLF, a BOM or a declared
// single-byte charset.
func (c *citeCorpus) addHTML(name string) {
	title := c.words(2 + c.rng.IntN(3))
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n")
	charset := ""
	switch {
	case c.chance(0.1):
		charset = "koi8-r"
	case c.chance(0.1):
		charset = "windows-1252"
	}
	if charset != "" {
		fmt.Fprintf(&b, "<meta charset=\"%s\">\n", charset)
	} else {
		b.WriteString("<meta charset=\"utf-8\">\n")
	}
	if c.chance(0.3) {
		half := len(title) / 2
		fmt.Fprintf(&b, "<title>%s\n  %s</title>\n", title[:half], title[half:])
	} else {
		fmt.Fprintf(&b, "<title>%s &amp; co</title>\n", title)
	}
	b.WriteString("<style>\nbody > p { margin: 0 }\n.a:after { content: \"<p>\" }\n</style>\n")
	fmt.Fprintf(&b, "<script>\nif (a < b && b > c) { x = \"</p><p>%s\" }\n</script>\n", c.word())
	if c.chance(0.05) {
		fmt.Fprintf(&b, "%s stray head text\n", c.word()) // a browser shows it
	}
	b.WriteString("</head>\n<body>\n")
	if c.chance(0.5) {
		fmt.Fprintf(&b, "<nav><ul><li><a href=\"../index.html\">%s</a></li><li><a href=\"https://example.org/%s\">%s</a></li></ul></nav>\n", c.word(), c.word(), c.word())
	}
	if c.chance(0.4) {
		fmt.Fprintf(&b, "<h1>%s &amp; co</h1>\n", title) // the title again: left out of the text
	}
	for range 4 + c.rng.IntN(25) {
		c.htmlBlock(&b, 0)
	}
	if c.chance(0.1) {
		fmt.Fprintf(&b, "<title>%s</title>\n", c.words(2)) // a second title, in the body
	}
	b.WriteString("</body>\n</html>\n")
	page := b.String()
	if c.chance(0.15) { // minified: one line
		page = strings.NewReplacer("\n", "", "\r", "").Replace(page)
	}
	switch {
	case charset == "koi8-r":
		page = strings.Replace(page, "<body>", "<body><p>Привет, мир: "+c.word()+"</p>", 1)
		enc, _ := encoding.ReplaceUnsupported(charmap.KOI8R.NewEncoder()).String(page)
		c.files[name] = []byte(enc)
	case charset == "windows-1252":
		page = strings.Replace(page, "<body>", "<body><p>café “quoted” "+c.word()+"</p>", 1)
		enc, _ := encoding.ReplaceUnsupported(charmap.Windows1252.NewEncoder()).String(page)
		c.files[name] = []byte(enc)
	case c.chance(0.15):
		c.files[name] = []byte(strings.ReplaceAll(page, "\n", "\r\n"))
	case c.chance(0.1):
		c.files[name] = []byte("\uFEFF" + page)
	default:
		c.files[name] = []byte(page)
	}
}

// inline returns running text with inline markup, entities and line breaks.
func (c *citeCorpus) inline() string {
	var parts []string
	for range 3 + c.rng.IntN(10) {
		w := c.word()
		switch c.rng.IntN(16) {
		case 0:
			w = "<b>" + w + "</b>"
		case 1:
			w = "<em>" + w + " " + c.word() + "</em>"
		case 2:
			w = fmt.Sprintf("<a href=\"https://example.com/%s\">%s</a>", c.word(), w)
		case 3:
			w = fmt.Sprintf("<a href=\"https://example.com/%s\">%s\n%s</a>", c.word(), w, c.word()) // a link across lines
		case 4:
			w = fmt.Sprintf("<a\n   class=\"reference internal\"\n   href=\"#%s\">%s</a>", c.word(), w) // a tag across lines
		case 5:
			w = w + " &amp; " + c.word() + " &lt;tag&gt; &quot;q&quot;&nbsp;" + c.word()
		case 6:
			w = w + "&#10;" + c.word() + "&#13;" + c.word() // encoded line breaks are not source lines
		case 7:
			w = w + " &#1;&#x85;&#127; &hellip; &mdash; " + c.word() // control characters and typography
		case 8:
			w = w + "<br>" + c.word()
		case 9:
			w = fmt.Sprintf("<img src=\"%s.png\"\n alt=\"%s\"> %s", c.word(), c.words(2), w) // alt text is not page text
		case 10:
			w = fmt.Sprintf("<code>%s()</code>", w)
		case 11:
			w = fmt.Sprintf("<a href=\"https://example.com/%s\">https://example.com/%s</a>", w, w) // text = URL
		case 12:
			w = w + "\n"
		case 13:
			w = "<!-- " + c.word() + "\n<p>commented</p> -->" + w
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

// htmlBlock writes one block element (recursing into lists and divs).
func (c *citeCorpus) htmlBlock(b *strings.Builder, depth int) {
	switch c.rng.IntN(15) {
	case 0:
		lvl := 2 + c.rng.IntN(4)
		fmt.Fprintf(b, "<h%d>%s<a class=\"headerlink\" href=\"#x\">¶</a></h%d>\n", lvl, c.inline(), lvl)
	case 1:
		tag, start := "ul", ""
		if c.chance(0.5) {
			tag, start = "ol", fmt.Sprintf(" start=\"%d\"", 1+c.rng.IntN(5))
		}
		fmt.Fprintf(b, "<%s%s>\n", tag, start)
		for range 1 + c.rng.IntN(5) {
			b.WriteString("<li>")
			if c.chance(0.3) && depth < 2 {
				b.WriteString("<p>" + c.inline() + "</p>\n")
				c.htmlBlock(b, depth+1)
			} else {
				b.WriteString(c.inline())
			}
			if c.chance(0.8) {
				b.WriteString("</li>")
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "</%s>\n", tag)
	case 2:
		b.WriteString("<table class=\"docutils\">\n<thead><tr><th>" + c.word() + "</th>\n<th>" + c.word() + "</th></tr></thead>\n<tbody>\n")
		for range 1 + c.rng.IntN(6) {
			switch c.rng.IntN(3) {
			case 0:
				fmt.Fprintf(b, "<tr><td><p>%s</p></td><td><p>%s</p></td></tr>\n", c.words(2), c.inline())
			case 1:
				fmt.Fprintf(b, "<tr\n  class=\"row\"><td>%s\n<td>\n%s\n", c.word(), c.words(3)) // omitted end tags
			default:
				fmt.Fprintf(b, "<tr><td></td><td>%s</td><td>%s</td></tr>\n", c.word(), c.word())
			}
		}
		b.WriteString("</tbody>\n</table>\n")
	case 3:
		b.WriteString("<pre>")
		if c.chance(0.5) {
			b.WriteString("\n")
		}
		for range 1 + c.rng.IntN(6) {
			fmt.Fprintf(b, "<span class=\"n\">%s</span> <span class=\"o\">=</span> %s &lt; %d&#10;%s<br>\n    %s\n", c.word(), c.word(), c.rng.IntN(9), c.word(), c.word())
		}
		b.WriteString("</pre>\n")
	case 4:
		fmt.Fprintf(b, "<blockquote><p>%s</p>\n<p>%s</p></blockquote>\n", c.inline(), c.inline())
	case 5:
		b.WriteString("<hr>\n")
	case 6:
		fmt.Fprintf(b, "<dl><dt>%s</dt><dd>%s</dd>\n<dt>%s<dd>%s</dl>\n", c.word(), c.inline(), c.word(), c.inline())
	case 7:
		fmt.Fprintf(b, "<noscript>%s</noscript><template><p>%s</p></template><svg><text>%s</text></svg><select><option>%s</select>\n",
			c.word(), c.word(), c.word(), c.word())
	case 8:
		if depth < 2 {
			b.WriteString("<div class=\"section\"\n     id=\"" + c.word() + "\">\n")
			for range 1 + c.rng.IntN(3) {
				c.htmlBlock(b, depth+1)
			}
			b.WriteString("</div>\n")
		}
	case 9: // malformed
		fmt.Fprintf(b, "<p>%s <b>%s <i>%s\n</div></span><p>%s << >> &bogus; &#0; %s\n", c.word(), c.word(), c.word(), c.word(), c.word())
	case 10: // an overlong paragraph line
		b.WriteString("<p>")
		for range 60 {
			b.WriteString(c.sentence() + " ")
		}
		b.WriteString("</p>\n")
	case 11:
		fmt.Fprintf(b, "<p>%s</p><p>%s</p><div>%s</div>", c.inline(), c.inline(), c.inline()) // blocks on one line
	default:
		fmt.Fprintf(b, "<p>%s\n%s</p>\n", c.inline(), c.inline())
	}
}
