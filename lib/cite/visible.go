package cite

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/dir2mcp/dir2mcp/lib/extract"
)

// Visible returns the text of HTML markup as a reader sees it: tags,
// comments and the doctype dropped, the content of extract.Textless elements
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
			case skip == "" && extract.Textless[n]:
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
