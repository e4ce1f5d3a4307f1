package eval

import (
	"html"
	"regexp"
	"strings"
	"unicode"
)

// SnippetInside reports whether a hit's snippet lies inside the text
// open_file returned for its cited span. Both sides lose all whitespace and
// the snippet its trailing "…" (a clipped snippet); for HTML the opened
// source also loses its tags and script/style content and has its entities
// decoded, since snippets are of the extracted text. An empty snippet is
// never inside.
func SnippetInside(snippet, content string, isHTML bool) bool {
	s := squeeze(strings.TrimSuffix(strings.TrimRightFunc(snippet, unicode.IsSpace), "…"))
	if s == "" {
		return false
	}
	if isHTML {
		content = HTMLText(content)
		s = squeeze(html.UnescapeString(s))
	}
	return strings.Contains(squeeze(content), s)
}

// HTMLText is the text of an HTML fragment: tags, comments and script and
// style content removed (each tag leaves a space), entities decoded.
func HTMLText(s string) string { return html.UnescapeString(stripTags(s)) }

// squeeze deletes all whitespace.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

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

var (
	mdLinePrefix = regexp.MustCompile(`^\s*(?:#{1,6} |(?:> )+|>$|[-*+] |[0-9]+\. )`)
	mdFenceOrHR  = regexp.MustCompile("^\\s*(?:```.*|---)\\s*$")
	mdLink       = regexp.MustCompile(`\[([^\]]*)\]\((?:[^)]*\)|[^)]*$)`)
)

// UnmarkHTMLSnippet removes from the snippet of an HTML hit the markdown
// dir2mcp's HTML extractor writes around the page's text (lib/extract:
// "#" heading marks, list and blockquote markers, code fences, rules,
// " | " between table cells, "[text](url)" links; fenced code is left
// as is), leaving the text the
// page shows, which SnippetInside can find in the HTML source. Without it
// an HTML snippet whose citation is exact would still fail on "### ".
func UnmarkHTMLSnippet(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	inFence := false
	for _, l := range lines {
		if mdFenceOrHR.MatchString(l) {
			inFence = inFence != strings.HasPrefix(strings.TrimSpace(l), "```")
			continue
		}
		for !inFence {
			m := mdLinePrefix.FindString(l)
			if m == "" {
				break
			}
			l = l[len(m):]
		}
		if !inFence {
			l = strings.ReplaceAll(mdLink.ReplaceAllString(l, "$1"), " | ", " ")
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
