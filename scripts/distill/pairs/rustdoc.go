package main

import (
	"regexp"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

var (
	rustDocLine = regexp.MustCompile(`^\s*///(?:[^/]|$)`)
	rustItem    = regexp.MustCompile(`^(?:pub(?:\([^)]*\))?\s+)?(?:(?:const|async|unsafe|default|extern\s+"[^"]*")\s+)*(fn|struct|enum|trait|type|union|static|const|macro_rules!)\s*([A-Za-z_][A-Za-z0-9_]*)`)
	rustImpl    = regexp.MustCompile(`^(?:unsafe\s+)?impl\b(?:<[^{]*?>)?\s+(?:[^{]*?\s+for\s+)?([A-Za-z_][A-Za-z0-9_]*)`)
)

// rustPairs returns the pairs of a crate directory: for each /// doc block
// directly followed (past attributes) by an item, the block's first
// sentence (masked; a method's type masked too) and the CodeText of the
// comment-free item.
func rustPairs(src source, dir string) ([]pair, error) {
	files, err := sourceFiles(dir, src.skip, src.only, func(rel string) bool { return strings.HasSuffix(rel, ".rs") && rel != "build.rs" })
	if err != nil {
		return nil, err
	}
	c := newCodePairs(src, "rs")
	err = readEach(files, dir, func(rel, text string) {
		raw := strings.Split(text, "\n")
		lines := strings.Split(stripCComments(text), "\n")
		impl := ""     // type of the impl block the line is in
		implDepth := 0 // indentation of that impl line
		for i := 0; i < len(raw); i++ {
			if m := rustImpl.FindStringSubmatch(strings.TrimSpace(raw[i])); m != nil {
				impl, implDepth = m[1], textsplit.Indent(raw[i])
			} else if impl != "" && strings.TrimSpace(raw[i]) == "}" && textsplit.Indent(raw[i]) <= implDepth {
				impl = ""
			}
			if !rustDocLine.MatchString(raw[i]) {
				continue
			}
			start := i
			for i < len(raw) && rustDocLine.MatchString(raw[i]) {
				i++
			}
			doc := docLines(strings.Join(raw[start:i], "\n"), "///")
			k := i
			for k < len(raw) && (strings.TrimSpace(raw[k]) == "" || strings.HasPrefix(strings.TrimSpace(raw[k]), "#[")) {
				k = skipAttribute(raw, k)
			}
			i = k - 1
			if k >= len(raw) {
				break
			}
			m := rustItem.FindStringSubmatch(strings.TrimSpace(raw[k]))
			if m == nil {
				continue
			}
			ident := m[2]
			if m[1] == "fn" && impl != "" && textsplit.Indent(raw[k]) > implDepth {
				ident = impl + "." + ident
			}
			c.add(rel, ident, strings.Split(doc, "\n# ")[0], braceBlock(lines, k, maxDeclLines))
		}
	})
	return c.out, err
}

// skipAttribute returns the line after the blank line or attribute
// starting at line k (an attribute may span lines until its brackets
// close).
func skipAttribute(lines []string, k int) int {
	depth := 0
	for j := k; j < len(lines); j++ {
		depth += strings.Count(lines[j], "[") - strings.Count(lines[j], "]")
		if depth <= 0 {
			return j + 1
		}
	}
	return len(lines)
}
