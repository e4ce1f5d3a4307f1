package main

import (
	"regexp"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

var (
	pyDef       = regexp.MustCompile(`^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)`)
	pyDocStart  = regexp.MustCompile(`^[rRuU]?("""|''')`)
	pyLineCmt   = regexp.MustCompile(`\s+#[^'"]*$`)
	pyFullCmt   = regexp.MustCompile(`^\s*#`)
	pyTestFiles = regexp.MustCompile(`(^|/)(test_[^/]*|[^/]*_test)\.py$`)
	pyDocBody   = regexp.MustCompile(`(?s)"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'`)
)

// pyPairs returns the pairs of the Python files under dir: for each def or
// class whose body opens with a docstring, the docstring's first sentence
// (masked; a method's class masked too) and the CodeText of the signature
// and body without docstring and comments.
func pyPairs(src source, dir string) ([]pair, error) {
	files, err := sourceFiles(dir, src.skip, src.only, func(rel string) bool { return strings.HasSuffix(rel, ".py") && !pyTestFiles.MatchString(rel) })
	if err != nil {
		return nil, err
	}
	c := newCodePairs(src, "py")
	err = readEach(files, dir, func(rel, text string) {
		lines := strings.Split(text, "\n")
		type scope struct {
			name   string
			indent int
		}
		var classes []scope
		for i := 0; i < len(lines); i++ {
			m := pyDef.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			ind := textsplit.Indent(lines[i])
			for len(classes) > 0 && classes[len(classes)-1].indent >= ind {
				classes = classes[:len(classes)-1]
			}
			ident := m[3]
			if m[2] == "def" && len(classes) > 0 {
				ident = classes[len(classes)-1].name + "." + ident
			}
			if m[2] == "class" {
				classes = append(classes, scope{m[3], ind})
			}
			// The signature ends at the line ending in ':'.
			sig := i
			for sig < len(lines) && sig < i+12 && !strings.HasSuffix(strings.TrimSpace(pyLineCmt.ReplaceAllString(lines[sig], "")), ":") {
				sig++
			}
			if sig >= len(lines) || sig == i+12 {
				continue
			}
			d := sig + 1
			for d < len(lines) && strings.TrimSpace(lines[d]) == "" {
				d++
			}
			if d >= len(lines) {
				continue
			}
			first := strings.TrimSpace(lines[d])
			dm := pyDocStart.FindStringSubmatch(first)
			if dm == nil {
				continue
			}
			quote := dm[1]
			rest := first[len(dm[0]):]
			var doc strings.Builder
			end := d
			if j := strings.Index(rest, quote); j >= 0 {
				doc.WriteString(rest[:j])
			} else {
				doc.WriteString(rest)
				for end = d + 1; end < len(lines); end++ {
					if j := strings.Index(lines[end], quote); j >= 0 {
						doc.WriteString("\n" + lines[end][:j])
						break
					}
					doc.WriteString("\n" + lines[end])
				}
			}
			// Body: the lines after the docstring indented deeper than the def.
			code := append([]string(nil), lines[i:sig+1]...)
			for k := end + 1; k < len(lines) && k < end+1+maxDeclLines; k++ {
				if strings.TrimSpace(lines[k]) != "" && textsplit.Indent(lines[k]) <= ind {
					break
				}
				code = append(code, lines[k])
			}
			var kept []string
			for _, l := range code {
				if pyFullCmt.MatchString(l) {
					continue
				}
				kept = append(kept, pyLineCmt.ReplaceAllString(l, ""))
			}
			c.add(rel, ident, dedent(doc.String()), pyDocBody.ReplaceAllString(strings.Join(kept, "\n"), " "))
		}
	})
	return c.out, err
}

// dedent trims every line of a docstring.
func dedent(s string) string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSpace(l)
	}
	return strings.Join(ls, "\n")
}
