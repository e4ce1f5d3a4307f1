package cite

import (
	"strings"

	"golang.org/x/net/html"
)

// Textless are the elements whose content is not document text (scripts,
// styles, fallbacks, embedded graphics and widgets): Visible drops it.
var Textless = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true,
	"svg": true, "math": true, "iframe": true, "object": true, "select": true,
	"noembed": true, "noframes": true, "canvas": true, "datalist": true,
}

// Visible returns the text of HTML markup as a reader sees it: tags,
// comments and the doctype dropped, the content of Textless elements
// dropped (one left open ends at </body> or </html>), character references
// decoded. The markup may be a slice of a page that starts inside a tag or
// comment; what precedes its first tag then reads as text.
func Visible(markup string) string {
	z := html.NewTokenizer(strings.NewReader(markup))
	var b strings.Builder
	skip, depth := "", 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == "" {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			switch n := string(name); {
			case skip == "" && Textless[n]:
				skip, depth = n, 1
			case n == skip:
				depth++
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch n := string(name); {
			case skip == "":
			case n == skip:
				if depth--; depth == 0 {
					skip = ""
				}
			case n == "body" || n == "html":
				skip, depth = "", 0
			}
		}
	}
}
