package corpora

import (
	"regexp"
	"strings"
)

// lodash@4.17.21 as published on npm: every file of the tarball (per-method
// modules, the lodash.js monolith, fp/).
var lodash = &Corpus{
	Name: "lodash",
	Pin:  "npm lodash@4.17.21 (every file of the tarball)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return c.extractNpm(npmPkg{"lodash", "4.17.21", "6a087ac9e5702a0c9d60fbcd48696012646ec8df1491dea472b150e79fcaf804"}, dst)
	},
	masks: map[string]func(string) error{"stripped": stripMask(".js", stripJS)},
}

var jsDocSet = &Set{
	Corpus: "lodash", Name: "jsdoc", Variants: []string{Orig, "stripped"}, prefix: "jsd", max: 400,
	Query:    "the first sentence of a JSDoc comment (markdown removed), the declared name masked",
	Relevant: "every declaration of that name carrying the sentence (module file and lodash.js), declaration line to its closing line",
	gen: func(root string) ([]Item, error) {
		return codeDocItems(root, suffix(".js"), func(rel string) bool { return !strings.HasSuffix(rel, ".min.js") }, jsDocDefs)
	},
}

var jsDecl = regexp.MustCompile(`^(\s*)(?:export\s+)?(?:(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(|(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*[=;])`)

// jsDocDefs finds /** ... */ comments directly above a function or variable
// declaration: the description (the text before the first @tag) and the
// declaration's lines, to the first later line at the same indentation
// that closes it (or the declaration line itself when it ends in ";").
func jsDocDefs(text string) []docDef {
	lines := strings.Split(text, "\n")
	var out []docDef
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "/**" && !strings.HasPrefix(strings.TrimSpace(lines[i]), "/** ") {
			continue
		}
		var desc []string
		inDesc := true
		j := i
		for ; j < len(lines); j++ {
			t := strings.TrimSpace(lines[j])
			closing := strings.HasSuffix(t, "*/")
			t = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(t, "/**"), "*"), "*/")
			t = strings.TrimSpace(t)
			if strings.HasPrefix(t, "@") {
				inDesc = false
			}
			if inDesc {
				desc = append(desc, t)
			}
			if closing {
				break
			}
		}
		if j+1 >= len(lines) {
			break
		}
		m := jsDecl.FindStringSubmatch(lines[j+1])
		i = j
		if m == nil {
			continue
		}
		name := m[2] + m[3]
		start := j + 2
		end := 0
		if t := strings.TrimSpace(lines[j+1]); strings.HasSuffix(t, ";") {
			end = start
		} else {
			for k := j + 2; k < len(lines) && k < j+400; k++ {
				l := lines[k]
				if strings.HasPrefix(l, m[1]) && len(l) > len(m[1]) && strings.ContainsRune("})", rune(l[len(m[1])])) {
					end = k + 1
					break
				}
			}
		}
		if end == 0 {
			continue
		}
		out = append(out, docDef{name: name, start: start, end: end, doc: strings.Join(desc, "\n")})
	}
	return out
}

// stripJS blanks every comment of JavaScript source, keeping lines. It
// knows strings, template literals and regular expression literals well
// enough for published library code.
func stripJS(src string) string {
	b := []byte(src)
	blank := func(a, z int) {
		for k := a; k < z; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	prev := byte('\n') // last significant code byte
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			blank(i, i+j)
			i += j
			continue
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			end := len(src)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			blank(i, end)
			i = end
			continue
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' {
					j++
				} else if src[j] == '\n' && c != '`' {
					break
				}
				j++
			}
			i = min(j+1, len(src))
			prev = c
			continue
		case c == '/' && strings.IndexByte("(,=:[!&|?{};+-*%<>~^\n", prev) >= 0:
			j, class := i+1, false
			for j < len(src) && src[j] != '\n' {
				if src[j] == '\\' {
					j += 2
					continue
				}
				if src[j] == '[' {
					class = true
				} else if src[j] == ']' {
					class = false
				} else if src[j] == '/' && !class {
					break
				}
				j++
			}
			i = min(j+1, len(src))
			prev = 'x'
			continue
		}
		if c != ' ' && c != '\t' && c != '\r' {
			prev = c
			if isIdentByte(c) && strings.HasSuffix(src[:i+1], "return") {
				prev = '(' // a regex may follow return
			}
		}
		i++
	}
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}
