package extract

import (
	"github.com/dir2mcp/dir2mcp/lib/textsplit"
	"strings"
	"unicode"
	"unicode/utf8"
)

// markdownTitle returns the title of markdown text: the "title" key of
// YAML ("---") or TOML ("+++") front matter, else the first level-1
// heading outside fenced code (ATX "# Title" or setext "Title\n==="), else "".
func markdownTitle(s string) string {
	body := s
	if fm, rest, ok := frontMatter(s); ok {
		if t := frontMatterTitle(fm); t != "" {
			return t
		}
		body = rest
	}
	var fence string
	prev := ""
	for len(body) > 0 {
		line := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if f := textsplit.FenceMarker(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence) && strings.TrimSpace(strings.TrimLeft(line, " "))[len(f):] == "":
				fence = ""
			}
			prev = ""
			continue
		}
		if fence != "" {
			continue
		}
		if t, ok := atxH1(line); ok {
			if t = cleanTitle(t); t != "" {
				return t
			}
		}
		if prev != "" && isSetextH1Underline(line) {
			if t := cleanTitle(prev); t != "" {
				return t
			}
		}
		prev = strings.TrimSpace(line)
	}
	return ""
}

// frontMatter splits leading "---" (YAML) or "+++" (TOML) front matter off s.
func frontMatter(s string) (fm, rest string, ok bool) {
	var delim string
	switch {
	case strings.HasPrefix(s, "---\n"):
		delim = "---"
	case strings.HasPrefix(s, "+++\n"):
		delim = "+++"
	default:
		return "", s, false
	}
	body := s[4:]
	for off := 0; off <= len(body); {
		end := strings.IndexByte(body[off:], '\n')
		line := body[off:]
		if end >= 0 {
			line = body[off : off+end]
		}
		l := strings.TrimRight(line, " \t")
		if l == delim || (delim == "---" && l == "...") {
			next := len(body)
			if end >= 0 {
				next = off + end + 1
			}
			return body[:off], body[next:], true
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return "", s, false
}

// frontMatterTitle finds a top-level "title: x" (YAML) or "title = x" (TOML).
func frontMatterTitle(fm string) string {
	for line := range strings.SplitSeq(fm, "\n") {
		rest, ok := strings.CutPrefix(line, "title")
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " \t")
		if !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "=") {
			continue
		}
		v := strings.TrimSpace(rest[1:])
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		return cleanTitle(v)
	}
	return ""
}

// atxH1 parses "# Title" (up to 3 leading spaces, optional closing #s).
func atxH1(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 2 || t[0] != '#' || (t[1] != ' ' && t[1] != '\t') {
		return "", false
	}
	t = strings.TrimSpace(t[2:])
	if u := strings.TrimRight(t, "#"); u != t && (u == "" || strings.HasSuffix(u, " ") || strings.HasSuffix(u, "\t")) {
		t = strings.TrimSpace(u)
	}
	return t, true
}

func isSetextH1Underline(line string) bool {
	t := strings.TrimSpace(line)
	return len(t) >= 3 && strings.Trim(t, "=") == ""
}

// cleanTitle collapses whitespace and caps the length at maxTitleBytes.
func cleanTitle(s string) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if len(s) > maxTitleBytes {
		cut := maxTitleBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut])
	}
	return s
}
