package corpora

import (
	"html"
	"strings"
)

// htmlText is the text of an HTML fragment: tags, comments and script and
// style content removed (each tag leaves a space), entities decoded.
func htmlText(s string) string { return html.UnescapeString(stripTags(s)) }

// stripTags removes markup: tags, comments, and the content of script and
// style elements. A tag cut off by the end of the text is dropped.
func stripTags(s string) string {
	var b strings.Builder
	lower := asciiLower(s) // same byte offsets as s
	for i := 0; i < len(s); {
		if s[i] != '<' {
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		if strings.HasPrefix(s[i:], "<!--") {
			end := strings.Index(s[i+4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			break
		}
		tag := lower[i : i+end+1]
		i += end + 1
		for _, el := range []string{"script", "style"} {
			if strings.HasPrefix(tag, "<"+el) && (len(tag) == len(el)+2 || !isNameByte(tag[len(el)+1])) && !strings.HasSuffix(tag, "/>") {
				close := strings.Index(lower[i:], "</"+el)
				if close < 0 {
					i = len(s)
				} else {
					i += close
				}
			}
		}
		b.WriteByte(' ')
	}
	return b.String()
}

// asciiLower lowers ASCII letters only, so offsets into the result are
// offsets into s (strings.ToLower may change the length).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'
}
