package main

import (
	"regexp"
	"sort"
	"strings"
)

// maxSourceBytes skips bundles and generated files: a hand-written source
// file is smaller.
const maxSourceBytes = 512 << 10

// maxDeclLines caps the declaration taken after a doc comment.
const maxDeclLines = 60

var (
	jsDocBlock = regexp.MustCompile(`(?s)/\*\*(.*?)\*/`)
	jsDecls    = []*regexp.Regexp{
		regexp.MustCompile(`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)`),
		regexp.MustCompile(`^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)`),
		regexp.MustCompile(`^(?:export\s+)?(?:declare\s+)?(?:interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)`),
		regexp.MustCompile(`^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)`),
		regexp.MustCompile(`^(?:(?:module\.)?exports|[A-Za-z_$][\w$]*\.prototype)\.([A-Za-z_$][\w$]*)\s*=`),
		regexp.MustCompile(`^(?:(?:public|private|protected|static|readonly|abstract|override|async|get|set|declare)\s+)*#?([A-Za-z_$][\w$]*)\s*\??\s*[(<:=]`),
	}
	jsNotIdent = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "return": true, "catch": true,
		"function": true, "new": true, "typeof": true, "await": true, "yield": true, "else": true, "do": true,
		"case": true, "throw": true, "delete": true, "import": true, "export": true, "super": true, "this": true}
	jsTag = regexp.MustCompile(`(?m)^\s*@`)
)

// isJSFile reports whether rel is JavaScript or TypeScript source (not
// minified).
func isJSFile(rel string) bool {
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"} {
		if strings.HasSuffix(rel, ext) {
			return !strings.HasSuffix(rel, ".min.js")
		}
	}
	return false
}

// jsRank orders JS files: TypeScript source first (it has bodies and
// types), then declaration files, then JavaScript, so that a doc comment
// repeated in compiled copies pairs with the best copy of its declaration.
func jsRank(rel string) int {
	switch {
	case strings.HasSuffix(rel, ".d.ts") || strings.HasSuffix(rel, ".d.mts") || strings.HasSuffix(rel, ".d.cts"):
		return 1
	case strings.HasSuffix(rel, "ts"):
		return 0
	}
	return 2
}

// jsPairs returns the JSDoc pairs of a package directory: for each /** */
// comment directly followed by a declaration, the comment's first
// sentence (masked) and the CodeText of the comment-free declaration.
// A sentence is kept once per package.
func jsPairs(src source, dir string) ([]pair, error) {
	files, err := sourceFiles(dir, src.skip, src.only, isJSFile)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(files, func(i, j int) bool { return jsRank(files[i]) < jsRank(files[j]) })
	c := newCodePairs(src, "js")
	err = readEach(files, dir, func(rel, text string) {
		lines := strings.Split(stripCComments(text), "\n")
		for _, m := range jsDocBlock.FindAllStringSubmatchIndex(text, -1) {
			body := text[m[2]:m[3]]
			if strings.Contains(body, "@deprecated") || strings.Contains(body, "@private") || strings.Contains(body, "@ignore") {
				continue
			}
			after := strings.Count(text[:m[1]], "\n") // line holding "*/"
			if rest := strings.TrimSpace(strings.SplitN(text[m[1]:], "\n", 2)[0]); rest != "" {
				continue // code on the comment's own line: not a declaration doc
			}
			line, ident := jsDeclAfter(lines, after+1)
			if ident == "" {
				continue
			}
			doc := docLines(body, " *")
			if loc := jsTag.FindStringIndex(doc); loc != nil {
				doc = doc[:loc[0]]
			}
			c.add(rel, ident, doc, braceBlock(lines, line, maxDeclLines))
		}
	})
	return c.out, err
}

// jsDeclAfter finds the declaration at or after line i (past blank and
// decorator lines) and returns its line and name, or "" if none.
func jsDeclAfter(lines []string, i int) (int, string) {
	for k := i; k < len(lines) && k < i+4; k++ {
		t := strings.TrimSpace(lines[k])
		if t == "" || strings.HasPrefix(t, "@") {
			continue
		}
		for _, re := range jsDecls {
			if m := re.FindStringSubmatch(t); m != nil && !jsNotIdent[m[1]] {
				return k, m[1]
			}
		}
		return k, ""
	}
	return i, ""
}

// docLines returns a comment's text without each line's leading white
// space and comment marker (e.g. " *" for JSDoc, "///" for Rust).
func docLines(body, marker string) string {
	ls := strings.Split(body, "\n")
	for i, l := range ls {
		l = strings.TrimLeft(l, " \t")
		l = strings.TrimPrefix(l, strings.TrimLeft(marker, " "))
		ls[i] = strings.TrimPrefix(l, " ")
	}
	return strings.Join(ls, "\n")
}
