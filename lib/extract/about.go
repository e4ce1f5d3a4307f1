package extract

import (
	"html"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// About is what a directory listing says about a document: a title, a one
// or two sentence description and tags. Any field may be empty.
type About struct {
	Title       string
	Description string
	Tags        []string
}

// maxDescription is the length a description is trimmed to (at a word
// boundary, with an ellipsis).
const maxDescription = 150

// Describe derives a document's About from its raw_text representation res,
// its raw bytes and its rel_path, without requiring any markup:
//
//   - markdown: front-matter title/description/tags, else the first level-1
//     heading; description = the first paragraph that is not a heading.
//   - HTML: <title>, else the first <h1>; <meta name="description">, else
//     the first paragraph of text.
//   - text: the first non-empty line; description = the next lines (2–4).
//   - code: description = the package or module doc comment where the
//     language has one (Go, Python, Rust, and a leading comment block
//     elsewhere), skipping license headers.
func Describe(res Result, raw []byte, docType, relPath string) About {
	var a About
	switch docType {
	case record.DocMarkdown:
		a.Title = res.Title
		body := res.Text
		if fm, rest, ok := frontMatter(body); ok {
			a.Description = trimDescription(frontMatterValue(fm, "description"))
			a.Tags = frontMatterList(fm, "tags")
			body = rest
		}
		if a.Description == "" {
			a.Description = trimDescription(firstParagraph(body))
		}
	case record.DocHTML:
		a.Title = res.Title
		a.Description = trimDescription(metaDescription(raw))
		if a.Description == "" {
			a.Description = trimDescription(firstParagraph(res.Text))
		}
	case record.DocText:
		lines := nonEmptyLines(res.Text, 4)
		if len(lines) > 0 {
			a.Title = cleanTitle(lines[0])
			a.Description = trimDescription(strings.Join(lines[1:], " "))
		}
	case record.DocCode:
		a.Description = trimDescription(codeDoc(res.Text, strings.ToLower(path.Ext(relPath))))
	}
	return a
}

func nonEmptyLines(s string, n int) []string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			out = append(out, t)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

// firstParagraph returns the first run of prose lines of markdown-ish text,
// skipping headings, fences, rules, HTML comments, tables and image lines.
func firstParagraph(s string) string {
	var para []string
	var fence string
	inComment := false
	for line := range strings.SplitSeq(s, "\n") {
		t := strings.TrimSpace(line)
		if f := textsplit.FenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence) {
				fence = ""
			}
			if len(para) > 0 {
				break
			}
			continue
		}
		if fence != "" {
			continue
		}
		if inComment || strings.HasPrefix(t, "<!--") {
			inComment = !strings.Contains(t, "-->")
			continue
		}
		prose := t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "|") && !strings.HasPrefix(t, "![") &&
			!strings.HasPrefix(t, "<") && !isRule(t)
		if !prose {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, strings.TrimLeft(t, ">*-+ "))
	}
	return stripInlineMarkdown(strings.Join(para, " "))
}

func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	return strings.Trim(t, "-") == "" || strings.Trim(t, "=") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == ""
}

var (
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdInline = strings.NewReplacer("**", "", "__", "", "`", "")
)

func stripInlineMarkdown(s string) string {
	return mdInline.Replace(mdLink.ReplaceAllString(s, "$1"))
}

// trimDescription collapses whitespace and cuts s at a word boundary near
// maxDescription bytes, marking the cut with an ellipsis.
func trimDescription(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if len(s) <= maxDescription {
		return s
	}
	cut := maxDescription
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > maxDescription/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ,;:.-") + "…"
}

// frontMatterValue finds a top-level scalar "key: value" (YAML) or
// "key = value" (TOML).
func frontMatterValue(fm, key string) string {
	for line := range strings.SplitSeq(fm, "\n") {
		if v, ok := frontMatterField(line, key); ok {
			return unquote(v)
		}
	}
	return ""
}

func frontMatterField(line, key string) (string, bool) {
	rest, ok := strings.CutPrefix(line, key)
	if !ok {
		return "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "=") {
		return "", false
	}
	return strings.TrimSpace(rest[1:]), true
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// frontMatterList reads key as a flow list ([a, b]), a comma list, or a
// YAML block list ("- a" lines below the key).
func frontMatterList(fm, key string) []string {
	lines := strings.Split(fm, "\n")
	for i, line := range lines {
		v, ok := frontMatterField(line, key)
		if !ok {
			continue
		}
		var items []string
		if v == "" {
			for _, l := range lines[i+1:] {
				t := strings.TrimSpace(l)
				if !strings.HasPrefix(t, "- ") {
					break
				}
				items = append(items, t[2:])
			}
		} else {
			items = strings.Split(strings.Trim(v, "[]"), ",")
		}
		var tags []string
		for _, it := range items {
			if t := strings.TrimSpace(unquote(strings.TrimSpace(it))); t != "" && !strings.ContainsRune(t, '\n') {
				tags = append(tags, t)
			}
		}
		return tags
	}
	return nil
}

var metaDesc = regexp.MustCompile(`(?is)<meta\s[^>]*name\s*=\s*["']?description["']?[^>]*>`)
var metaContent = regexp.MustCompile(`(?is)content\s*=\s*("([^"]*)"|'([^']*)')`)

// metaDescription returns <meta name="description" content="..."> from the
// first 64 KiB of an HTML document.
func metaDescription(raw []byte) string {
	if len(raw) > 64<<10 {
		raw = raw[:64<<10]
	}
	tag := metaDesc.Find(raw)
	if tag == nil {
		return ""
	}
	m := metaContent.FindSubmatch(tag)
	if m == nil {
		return ""
	}
	v := string(m[2]) + string(m[3])
	if !utf8.ValidString(v) {
		return ""
	}
	return html.UnescapeString(v)
}

// codeDoc returns the module-level doc comment of source text with
// extension ext.
func codeDoc(text, ext string) string {
	lines := strings.Split(text, "\n")
	switch ext {
	case ".go":
		return goPackageDoc(lines)
	case ".py":
		return pythonDocstring(lines)
	case ".rs":
		return prefixedBlock(lines, "//!")
	}
	return leadingComment(lines)
}

// goPackageDoc is the comment block directly above the package clause.
func goPackageDoc(lines []string) string {
	for i, l := range lines {
		if !strings.HasPrefix(l, "package ") {
			continue
		}
		j := i
		for j > 0 && strings.HasPrefix(strings.TrimSpace(lines[j-1]), "//") {
			j--
		}
		if j < i {
			return commentText(lines[j:i])
		}
		if i > 0 && strings.HasSuffix(strings.TrimSpace(lines[i-1]), "*/") {
			k := i - 1
			for k > 0 && !strings.Contains(lines[k], "/*") {
				k--
			}
			return commentText(lines[k:i])
		}
		return ""
	}
	return ""
}

// pythonDocstring is a module docstring: the first statement being a
// triple-quoted string.
func pythonDocstring(lines []string) string {
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		t = strings.TrimLeft(t, "rRuU")
		for _, q := range []string{`"""`, `'''`} {
			if !strings.HasPrefix(t, q) {
				continue
			}
			body := t[3:]
			if end := strings.Index(body, q); end >= 0 {
				return body[:end]
			}
			var b []string
			b = append(b, body)
			for _, m := range lines[i+1:] {
				if end := strings.Index(m, q); end >= 0 {
					return strings.Join(append(b, m[:end]), " ")
				}
				b = append(b, m)
			}
			return strings.Join(b, " ")
		}
		return ""
	}
	return ""
}

// prefixedBlock joins the first run of lines starting with prefix.
func prefixedBlock(lines []string, prefix string) string {
	var b []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, prefix) {
			b = append(b, strings.TrimSpace(strings.TrimPrefix(t, prefix)))
		} else if len(b) > 0 {
			break
		}
	}
	return strings.Join(b, " ")
}

// leadingComment is the first comment block of a file (after a shebang),
// unless it is a license header.
func leadingComment(lines []string) string {
	i := 0
	for i < len(lines) && (strings.TrimSpace(lines[i]) == "" || strings.HasPrefix(lines[i], "#!")) {
		i++
	}
	for i < len(lines) {
		j := i
		t := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(t, "/*"):
			for j < len(lines) && !strings.Contains(lines[j], "*/") {
				j++
			}
			j++
		case strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "--"):
			for j < len(lines) && isLineComment(strings.TrimSpace(lines[j])) {
				j++
			}
		default:
			return ""
		}
		j = min(j, len(lines))
		c := commentText(lines[i:j])
		if !isLicense(c) {
			return c
		}
		i = j
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
	}
	return ""
}

func isLineComment(t string) bool {
	return (strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "--")) && !strings.HasPrefix(t, "#include") && !strings.HasPrefix(t, "#!")
}

func isLicense(c string) bool {
	l := strings.ToLower(c)
	return strings.Contains(l, "copyright") || strings.Contains(l, "license") || strings.Contains(l, "spdx-")
}

// commentText strips comment markers from a block of comment lines.
func commentText(lines []string) string {
	var b []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		for _, p := range []string{"/**", "/*", "*/", "//", "--", "#", "*"} {
			t = strings.TrimPrefix(t, p)
		}
		t = strings.TrimSuffix(t, "*/")
		if t = strings.TrimSpace(t); t != "" {
			b = append(b, t)
		}
	}
	return strings.Join(b, " ")
}
