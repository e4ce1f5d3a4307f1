package corpora

import (
	"regexp"
	"strings"
)

// The Python 3.11 standard library as Debian ships it
// (libpython3.11-minimal + libpython3.11-stdlib: /usr/lib/python3.11
// without the compiled extension modules of lib-dynload).
var pyStdlib = &Corpus{
	Name: "pystdlib",
	Pin:  "Debian libpython3.11-minimal + libpython3.11-stdlib 3.11.2-6+deb12u9 (/usr/lib/python3.11 without lib-dynload)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return fromDebs(c, dst, "usr/lib/python3.11", func(rel string) bool {
			return !strings.HasPrefix(rel, "lib-dynload/") && !strings.HasSuffix(rel, ".so")
		},
			deb{"libpython3.11-minimal", "3.11.2-6+deb12u9", "69f41cfa3f4ba17284e538f843069d7529c53c207d2ae17a5b02785944870e33"},
			deb{"libpython3.11-stdlib", "3.11.2-6+deb12u9", "10f13e000ee757f5f2d2d3569f9e30546214a0c850acd78695feae373bfa3e53"})
	},
	masks: map[string]func(string) error{"stripped": stripMask(".py", stripPython)},
}

var pyDocSet = &Set{
	Corpus: "pystdlib", Name: "docstring", Variants: []string{Orig, "stripped"}, prefix: "pyd", max: 400,
	Query:    "the first sentence of a public function's, method's or class's docstring, its name masked",
	Relevant: "the definition's lines (def line to the body's end; a class: up to its first method)",
	gen: func(root string) ([]Item, error) {
		return codeDocItems(root, suffix(".py"), func(rel string) bool { return !pyTestFile(rel) }, func(text string) []docDef {
			var out []docDef
			for _, d := range pyDefs(text) {
				if d.doc != "" && !d.nested && !strings.HasPrefix(d.name, "_") && !strings.HasPrefix(d.class, "_") {
					out = append(out, docDef{d.name, d.class, d.start, d.end, d.doc})
				}
			}
			return out
		})
	},
}

var pyIdentSet = &Set{
	Corpus: "pystdlib", Name: "ident", Variants: []string{Orig}, prefix: "pyi", max: 400,
	Query:    "the bare name of a public module-level class or function, e.g. SequenceMatcher",
	Relevant: "every definition of that name (at most 3; names defined more often are skipped)",
	gen: func(root string) ([]Item, error) {
		return identItems(root, suffix(".py"), func(rel, text string) []identDef {
			if pyTestFile(rel) {
				return nil
			}
			var out []identDef
			for _, d := range pyDefs(text) {
				if d.class == "" && !d.nested && !strings.HasPrefix(d.name, "_") && len(d.name) >= 4 {
					out = append(out, identDef{d.name, d.start, d.end})
				}
			}
			return out
		})
	},
}

func pyTestFile(rel string) bool {
	return strings.HasPrefix(rel, "test/") || strings.Contains(rel, "/test/") || strings.Contains(rel, "idle_test/") ||
		strings.Contains(rel, "/tests/")
}

// pyDef is one def or class of a Python file.
type pyDef struct {
	name, class string // class: the enclosing class of a method
	nested      bool   // inside a function
	isClass     bool
	start, end  int    // 1-based lines: the def/class line .. the body's end (a class: up to its first def)
	doc         string // docstring text
}

func (d pyDef) qual() string {
	if d.class != "" {
		return d.class + "." + d.name
	}
	return d.name
}

// pyLogical is one logical line of Python source (code only; comments and
// blank lines are not logical lines).
type pyLogical struct {
	start, end int    // 1-based physical lines
	indent     int    // columns of the first line
	text       string // the start of the code (string literals kept), at most textMax bytes
	onlyString bool   // the line is a single string literal (a docstring candidate)
	strText    string // that literal's raw content
}

// textMax bounds pyLogical.text: enough to recognise a def, class or
// decorator, and linear time on huge literals.
const textMax = 256

func (l *pyLogical) add(s string) {
	if n := textMax - len(l.text); n > 0 {
		l.text += s[:min(n, len(s))]
	}
}

// pyScan splits Python source into logical lines and records the byte
// ranges of comments and of string literals that are whole statements
// (docstrings and other bare strings), for stripping.
func pyScan(src string) (lines []pyLogical, comments, bareStrings [][2]int) {
	i, line, depth := 0, 1, 0
	var cur *pyLogical
	var curStrings int
	var lastStr [2]int
	var lastStrText string
	flush := func() {
		if cur != nil {
			cur.end = line
			if curStrings == 1 && cur.onlyString {
				bareStrings = append(bareStrings, lastStr)
				cur.strText = lastStrText
			} else {
				cur.onlyString = false
			}
			lines = append(lines, *cur)
		}
		cur, curStrings, depth = nil, 0, 0
	}
	lineStart := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n':
			if depth == 0 {
				flush()
			}
			line++
			i++
			lineStart = i
			continue
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			line++
			i += 2
			lineStart = i
			continue
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			comments = append(comments, [2]int{i, i + j})
			i += j
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			if cur != nil {
				cur.add(" ")
			}
			i++
			continue
		}
		if cur == nil {
			cur = &pyLogical{start: line, indent: i - lineStart, onlyString: true}
		}
		// String literal (with an optional prefix)?
		j := i
		for j < len(src) && j-i < 3 && strings.IndexByte("rRbBuUfF", src[j]) >= 0 {
			j++
		}
		if j < len(src) && (src[j] == '"' || src[j] == '\'') && (j == i || !isIdentByte(prevByte(src, i))) {
			q := src[j : j+1]
			if strings.HasPrefix(src[j:], q+q+q) {
				q = q + q + q
			}
			k := j + len(q)
			for k < len(src) {
				if src[k] == '\\' { // escapes (in raw strings too, a quote after \ does not end the string)
					if k+1 < len(src) && src[k+1] == '\n' {
						line++
					}
					k += 2
					continue
				}
				if strings.HasPrefix(src[k:], q) {
					k += len(q)
					break
				}
				if src[k] == '\n' {
					if len(q) == 1 {
						break // unterminated single-quoted string
					}
					line++
				}
				k++
			}
			k = min(k, len(src))
			curStrings++
			lastStr = [2]int{i, k}
			lastStrText = src[j+len(q) : max(j+len(q), k-len(q))]
			cur.add(src[i:k])
			i = k
			continue
		}
		cur.onlyString = false
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
		}
		cur.add(src[i : i+1])
		i++
	}
	flush()
	return lines, comments, bareStrings
}

func prevByte(s string, i int) byte {
	if i == 0 {
		return ' '
	}
	return s[i-1]
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

var pyDefLine = regexp.MustCompile(`^(?:async\s+)?(def|class)\s+([A-Za-z_][A-Za-z0-9_]*)`)

// pyDefs lists the defs and classes of a Python file with their extents
// and docstrings.
func pyDefs(src string) []pyDef {
	lines, _, _ := pyScan(src)
	var out []pyDef
	type scope struct {
		indent  int
		isClass bool
		name    string
	}
	var stack []scope
	for i, l := range lines {
		for len(stack) > 0 && l.indent <= stack[len(stack)-1].indent {
			stack = stack[:len(stack)-1]
		}
		m := pyDefLine.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		d := pyDef{name: m[2], isClass: m[1] == "class", start: l.start, end: l.end}
		for _, s := range stack {
			if !s.isClass {
				d.nested = true
			}
		}
		if n := len(stack); n > 0 && stack[n-1].isClass {
			d.class = stack[n-1].name
		}
		firstDef := 0
		for j := i + 1; j < len(lines) && lines[j].indent > l.indent; j++ {
			if j == i+1 && lines[j].onlyString {
				d.doc = pyDocText(lines[j].strText)
			}
			if firstDef == 0 && j > i+1 && (pyDefLine.MatchString(lines[j].text) || strings.HasPrefix(lines[j].text, "@")) {
				firstDef = lines[j].start - 1
			}
			d.end = lines[j].end
		}
		if d.isClass && firstDef > 0 {
			d.end = max(firstDef, d.start)
		}
		out = append(out, d)
		stack = append(stack, scope{l.indent, d.isClass, d.name})
	}
	return out
}

// pyDocText is a docstring's text with escapes of line ends dropped.
func pyDocText(s string) string { return strings.ReplaceAll(s, "\\\n", "") }

// stripPython removes comments and bare string statements (docstrings),
// keeping every line: a docstring becomes "" followed by its newlines.
func stripPython(src string) string {
	_, comments, strs := pyScan(src)
	type cut struct {
		a, b int
		with string
	}
	var cuts []cut
	for _, c := range comments {
		cuts = append(cuts, cut{c[0], c[1], ""})
	}
	for _, s := range strs {
		cuts = append(cuts, cut{s[0], s[1], `""` + strings.Repeat("\n", strings.Count(src[s[0]:s[1]], "\n"))})
	}
	// comments and strings never overlap; apply in order
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j].a < cuts[j-1].a; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	var b strings.Builder
	last := 0
	for _, c := range cuts {
		if c.a < last {
			continue
		}
		b.WriteString(src[last:c.a])
		b.WriteString(c.with)
		last = c.b
	}
	b.WriteString(src[last:])
	return b.String()
}

// firstSentence is the first sentence of a doc text: up to the first
// ". " / ".\n" or blank line, whitespace collapsed.
func firstSentence(doc string) string {
	doc = strings.TrimSpace(doc)
	if i := strings.Index(doc, "\n\n"); i >= 0 {
		doc = doc[:i]
	}
	doc = oneLine(doc)
	for i := 0; i+1 < len(doc); i++ {
		if doc[i] == '.' && doc[i+1] == ' ' && !abbrev(doc[:i]) {
			return doc[:i+1]
		}
	}
	return doc
}

// abbrev reports whether the text before a period ends in an abbreviation
// (e.g., i.e., etc.) rather than a sentence.
func abbrev(s string) bool {
	for _, a := range []string{" e.g", " i.e", " etc", " vs", "e.g", "i.e"} {
		if strings.HasSuffix(s, a) {
			return true
		}
	}
	return false
}

// maskIdent hides the names a doc sentence would give away: each
// whole-word occurrence of the identifier (and its class) becomes "it".
func maskIdent(s string, names ...string) string {
	for _, n := range names {
		if n == "" {
			continue
		}
		s = regexp.MustCompile(`\b`+regexp.QuoteMeta(n)+`\b`).ReplaceAllString(s, "it")
	}
	return strings.TrimSpace(s)
}

// identDef is a definition of a name: its lines in one file.
type identDef struct {
	name       string
	start, end int
}

// identItems makes the identifier → definition set: one query per name
// defined at most 3 times across the corpus, every definition relevant.
func identItems(root string, match func(string) bool, defs func(rel, text string) []identDef) ([]Item, error) {
	byName := map[string]map[string]int{}
	var order []string
	err := walkFiles(root, match, func(rel, text string) error {
		for _, d := range defs(rel, text) {
			if byName[d.name] == nil {
				byName[d.name] = map[string]int{}
				order = append(order, d.name)
			}
			byName[d.name][lineDoc(rel, d.start, d.end)] = 1
		}
		return nil
	})
	var items []Item
	for _, n := range order {
		if rel := byName[n]; len(rel) <= 3 {
			items = append(items, Item{Key: n, Query: n, Rel: rel})
		}
	}
	return items, err
}
