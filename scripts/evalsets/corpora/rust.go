package corpora

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Rust crate sources as Debian packages them (librust-*-dev: the crate as
// published, under <crate>-<version>/).
var rustCrates = &Corpus{
	Name: "rustcrates",
	Pin:  "Debian librust-{anyhow,bytes,chrono,hashbrown,indexmap,itertools,memchr,nom,rayon,rayon-core,regex,regex-syntax,serde}-dev (versions in scripts/evalsets/corpora/rust.go; /usr/share/cargo/registry)",
	rev:  1,
	fetch: func(c *Cache, dst string) error {
		return fromDebs(c, dst, "usr/share/cargo/registry", nil, rustDebs...)
	},
	masks: map[string]func(string) error{"stripped": stripMask(".rs", stripRust)},
}

var rustDebs = []deb{
	{"librust-anyhow-dev", "1.0.69-1", "f877f024d95d8af3c3f62e2cf74e6ba5eb976a3cf27c920bda786cd32029b79d"},
	{"librust-bytes-dev", "1.2.1-1", "86fbba5fe9d10f1eeb28944e52cfc8caa75f9a509c3603b70f8107f151744fcc"},
	{"librust-chrono-dev", "0.4.23-2", "e3d5c2220c1441bdbe550cece4480b70863c39f2856cf8c7b39b2aeb7c47606c"},
	{"librust-hashbrown-dev", "0.12.3-1", "86ca499697497d825a2e76f43648ad2d49cc65763964ff234ce32c4fc862f55f"},
	{"librust-indexmap-dev", "1.9.2-1", "691b9efb8df4abdfdb238713c1f66416f31e2c2a33fd15687aae2c4dcb9b5308"},
	{"librust-itertools-dev", "0.10.3-1", "3e13fc328508275c2c84270133f41a300ffb58b9b77001b89373ba7f7ab57fde"},
	{"librust-memchr-dev", "2.5.0-1", "9b0f9497acbf8d8e706181a248a31624c6215ce86353a972d19d0cf0252f4183"},
	{"librust-nom-dev", "7.1.1-1", "a11f91ec226f23f28046a928fbfbb7cae1d2915fab071ccdf14c6d61572aa114"},
	{"librust-rayon-core-dev", "1.10.1-1", "c19c1d13bcb9224ff0c984c32d60296ffa95351d6b4f88b38c276abe3d71d054"},
	{"librust-rayon-dev", "1.6.1-1", "2f04ea06c755036d57b9e6b297bc3457bc86058f459fc1ee8d4ec51db5d640b2"},
	{"librust-regex-dev", "1.7.1-1", "9b8c87bb5aa87c0095f4cc36ed829c80e815c2f71337325bd6e25f8de1fba7f7"},
	{"librust-regex-syntax-dev", "0.6.27-1", "16c9879e07d6f9c6b2618906126d17e51ec8b04bced0fe3bb0cf0f3062f8a353"},
	{"librust-serde-dev", "1.0.152-2", "c3ff1f1db5056118a102a6b06043cea152bf0b63e96fd71a16e9c827959fcc78"},
}

var rustDocSet = &Set{
	Corpus: "rustcrates", Name: "doc", Variants: []string{Orig, "stripped"}, prefix: "rsd", max: 400,
	Query:    "the first sentence of a documented fn's /// comment (markdown removed), its name masked",
	Relevant: "the fn's lines (signature to closing brace)",
	gen: func(root string) ([]Item, error) {
		return codeDocItems(root, suffix(".rs"), rustSrcFile, func(text string) []docDef {
			var out []docDef
			for _, it := range rustItems(text) {
				if it.kind == "fn" && it.doc != "" {
					out = append(out, docDef{it.name, "", it.start, it.end, it.doc})
				}
			}
			return out
		})
	},
}

var rustIdentSet = &Set{
	Corpus: "rustcrates", Name: "ident", Variants: []string{Orig}, prefix: "rsi", max: 400,
	Query:    "the bare name of a pub struct, enum, trait, fn or macro, e.g. RegexSet",
	Relevant: "every definition of that name (at most 3; names defined more often are skipped)",
	gen: func(root string) ([]Item, error) {
		return identItems(root, suffix(".rs"), func(rel, text string) []identDef {
			if !rustSrcFile(rel) {
				return nil
			}
			var out []identDef
			for _, it := range rustItems(text) {
				if it.pub && it.kind != "mod" && it.kind != "type" && len(it.name) >= 4 {
					out = append(out, identDef{it.name, it.start, it.end})
				}
			}
			return out
		})
	},
}

func rustSrcFile(rel string) bool {
	_, p, _ := strings.Cut(rel, "/")
	return strings.HasPrefix(p, "src/") && !strings.Contains(p, "/tests/") && !strings.HasSuffix(p, "/tests.rs")
}

// rustCode marks the bytes of Rust source that are code (not comments or
// string and char literals), and returns the comment ranges.
func rustCode(src string) (code []bool, comments [][2]int) {
	code = make([]bool, len(src))
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			comments = append(comments, [2]int{i, i + j})
			i += j
			continue
		case strings.HasPrefix(src[i:], "/*"):
			depth, j := 1, i+2
			for j < len(src) && depth > 0 {
				switch {
				case strings.HasPrefix(src[j:], "/*"):
					depth++
					j += 2
				case strings.HasPrefix(src[j:], "*/"):
					depth--
					j += 2
				default:
					j++
				}
			}
			comments = append(comments, [2]int{i, j})
			i = j
			continue
		case c == '"' || (c == 'r' || c == 'b') && !isIdentByte(prevByte(src, i)) && rawStart(src[i:]) > 0:
			i = rustString(src, i)
			continue
		case c == '\'':
			if j := rustChar(src, i); j > 0 {
				i = j
				continue
			}
		}
		code[i] = true
		i++
	}
	return code, comments
}

// rawStart returns the length of a (byte) string opener at s: b", r", r#",
// br#", ...; 0 if none.
func rawStart(s string) int {
	j := 0
	if j < len(s) && s[j] == 'b' {
		j++
	}
	if j < len(s) && s[j] == 'r' {
		j++
		for j < len(s) && s[j] == '#' {
			j++
		}
	}
	if j > 0 && j < len(s) && s[j] == '"' {
		return j + 1
	}
	return 0
}

// rustString skips the string literal at i and returns the index after it.
func rustString(src string, i int) int {
	open := 1
	if src[i] != '"' {
		open = rawStart(src[i:])
	}
	prefix := src[i : i+open-1]
	hashes := strings.Count(prefix, "#")
	raw := strings.Contains(prefix, "r")
	j := i + open
	for j < len(src) {
		if !raw && src[j] == '\\' {
			j += 2
			continue
		}
		if src[j] == '"' && strings.HasPrefix(src[j+1:], strings.Repeat("#", hashes)) {
			return j + 1 + hashes
		}
		j++
	}
	return len(src)
}

// rustChar returns the index after a char literal at i ('x', '\n',
// '\u{1F600}'), or 0 for a lifetime.
func rustChar(src string, i int) int {
	if i+1 >= len(src) {
		return 0
	}
	if src[i+1] == '\\' {
		if j := strings.IndexByte(src[i+2:], '\''); j >= 0 && j < 12 {
			return i + 2 + j + 1
		}
		return 0
	}
	_, n := utf8.DecodeRuneInString(src[i+1:])
	if i+1+n < len(src) && src[i+1+n] == '\'' {
		return i + 2 + n
	}
	return 0
}

// stripRust blanks every comment (doc comments included), keeping lines.
func stripRust(src string) string {
	_, comments := rustCode(src)
	b := []byte(src)
	for _, c := range comments {
		for k := c[0]; k < c[1]; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	// drop the trailing blanks a cut comment leaves
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

type rustItem struct {
	kind, name string
	pub        bool
	start, end int // 1-based lines
	doc        string
}

var rustItemRE = regexp.MustCompile(`^\s*(pub(?:\s*\([^)]*\))?\s+)?(?:(?:const|async|unsafe|extern|default)\s+)*(fn|struct|enum|trait|type|union|mod)\s+([A-Za-z_][A-Za-z0-9_]*)|^\s*macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)`)

// rustItems finds the items of a Rust file with their extents (item line to
// the closing brace or semicolon) and /// docs.
func rustItems(src string) []rustItem {
	code, _ := rustCode(src)
	// code-only text: non-code bytes become spaces, newlines kept
	cb := []byte(src)
	for k := range cb {
		if !code[k] && cb[k] != '\n' {
			cb[k] = ' '
		}
	}
	codeText := string(cb)
	lines := strings.Split(src, "\n")
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l) + 1
	}
	lineOf := func(off int) int { // 1-based
		lo, hi := 0, len(lines)
		for lo < hi {
			m := (lo + hi) / 2
			if offs[m+1] <= off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo + 1
	}
	var out []rustItem
	for i := range lines {
		cl := codeText[offs[i]:min(offs[i]+len(lines[i]), len(codeText))]
		m := rustItemRE.FindStringSubmatchIndex(cl)
		if m == nil {
			continue
		}
		it := rustItem{start: i + 1}
		if m[8] >= 0 {
			it.kind, it.name, it.pub = "macro", cl[m[8]:m[9]], true
		} else {
			it.kind, it.name, it.pub = cl[m[4]:m[5]], cl[m[6]:m[7]], m[2] >= 0
			if strings.Contains(cl[max(m[2], 0):max(m[3], 0)], "(") {
				it.pub = false // pub(crate) and the like
			}
		}
		// the end: the first { or ; outside () and [], then the matching }
		depth, end := 0, -1
		for k := offs[i] + m[1]; k < len(src) && end < 0; k++ {
			if !code[k] {
				continue
			}
			switch src[k] {
			case '(', '[':
				depth++
			case ')', ']':
				depth--
			case ';':
				if depth == 0 {
					end = k
				}
			case '{':
				if depth == 0 {
					b := 0
					for ; k < len(src); k++ {
						if !code[k] {
							continue
						}
						if src[k] == '{' {
							b++
						} else if src[k] == '}' {
							if b--; b == 0 {
								break
							}
						}
					}
					end = min(k, len(src)-1)
				}
			}
		}
		if end < 0 {
			continue
		}
		it.end = lineOf(end)
		// docs: the /// lines above, across attributes
		var doc []string
		for j := i - 1; j >= 0; j-- {
			t := strings.TrimSpace(lines[j])
			if strings.HasPrefix(t, "///") && !strings.HasPrefix(t, "////") {
				doc = append([]string{strings.TrimPrefix(strings.TrimPrefix(t, "///"), " ")}, doc...)
				continue
			}
			if strings.HasPrefix(t, "#[") || strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "///") {
				continue
			}
			break
		}
		it.doc = strings.Join(doc, "\n")
		out = append(out, it)
	}
	return out
}

// docDef is a documented definition for a description → code set.
type docDef struct {
	name, class string // class: a method's class, masked too
	start, end  int
	doc         string
}

var (
	mdLink  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	mdRef   = regexp.MustCompile(`\[([^\]]*)\](?:\[[^\]]*\])?`)
	mdTicks = strings.NewReplacer("`", "", "**", "", "*", "")
)

// plainMarkdown drops inline markdown: links keep their text, code ticks
// and emphasis marks go.
func plainMarkdown(s string) string {
	return mdTicks.Replace(mdRef.ReplaceAllString(mdLink.ReplaceAllString(s, "$1"), "$1"))
}

// codeDocItems makes the description → code set: the first sentence of each
// definition's doc (markdown removed, its name masked, at least five words)
// → the definition's lines; a sentence shared by definitions of the same
// name makes them all relevant, by different names drops it.
func codeDocItems(root string, match, srcFile func(string) bool, defs func(text string) []docDef) ([]Item, error) {
	type group struct {
		name string
		it   Item
	}
	byQuery := map[string]*group{}
	var order []string
	err := walkFiles(root, match, func(rel, text string) error {
		if !srcFile(rel) {
			return nil
		}
		for _, d := range defs(text) {
			q := maskIdent(firstSentence(plainMarkdown(d.doc)), d.name, d.class)
			if len(strings.Fields(q)) < 5 || strings.Contains(q, "->") {
				continue // too short to describe anything, or a signature
			}
			k := normQuery(q)
			g := byQuery[k]
			if g == nil {
				g = &group{name: d.name, it: Item{Key: fmt.Sprintf("%s:%d:%s.%s", rel, d.start, d.class, d.name), Query: q, Rel: map[string]int{}}}
				byQuery[k] = g
				order = append(order, k)
			} else if g.name != d.name {
				g.it.Rel = nil
				continue
			}
			if g.it.Rel != nil {
				g.it.Rel[lineDoc(rel, d.start, d.end)] = 1
			}
		}
		return nil
	})
	var items []Item
	for _, k := range order {
		if g := byQuery[k]; g.it.Rel != nil {
			items = append(items, g.it)
		}
	}
	return items, err
}
