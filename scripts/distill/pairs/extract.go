package main

import (
	"bytes"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/embed/local"
)

// pair is one line of output: a query-like text and the passage it should
// find. Kinds: go, js (JavaScript/TypeScript), rs (Rust) and py (Python)
// pair a masked doc sentence with the comment-free declaration's CodeText;
// md pairs a markdown heading (or a question made from it) with the
// section's text, faq a question heading or FAQ entry with its answer.
type pair struct {
	Kind  string `json:"kind"`
	Mod   string `json:"mod"`   // module, npm package or crate
	File  string `json:"file"`  // path inside it
	Ident string `json:"ident"` // Name or Recv.Name; the heading for md and faq
	Doc   string `json:"doc"`   // first doc sentence, identifier masked; heading or question
	Code  string `json:"code"`  // CodeText of the declaration without comments; section text
	// Window is the CodeText of the window of the comment-free file that
	// holds the declaration's first line (with options.window > 0).
	Window string `json:"window,omitempty"`
	// Raw is the declaration's source without comments, with -raw (for
	// the held-out checks in testdata/embed/pairs.json).
	Raw string `json:"raw,omitempty"`
	// Original is the unmasked sentence (decontamination only).
	Original string `json:"-"`
}

// minWords is the shortest masked sentence kept, as in the gostd eval.
const minWords = 5

var synopsis = (&doc.Package{}).Synopsis

// skipDir reports whether a directory of a module holds no code of its own
// authors worth learning from: test data, vendored or forked code.
func skipDir(name string) bool {
	l := strings.ToLower(name)
	return l == "testdata" || l == "vendor" || l == "third_party" || strings.Contains(l, "fork") ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// goAuthored reports whether a source file carries the Go Authors'
// copyright: code copied from the Go tree, whose docs would leak the
// standard library into the fit.
func goAuthored(src []byte) bool {
	head := src[:min(len(src), 2048)]
	return bytes.Contains(head, []byte("The Go Authors"))
}

// options shape the code side of the pairs.
type options struct {
	maxWords    int  // words kept of a declaration
	window      int  // lines per window (0: no windows)
	step        int  // lines between window starts
	windowWords int  // words kept of a window
	raw         bool // also give the raw declaration
}

// modulePairs returns the pairs of one module directory in file path order,
// then source order, without repeats.
func modulePairs(m module, dir string, opt options) ([]pair, error) {
	short := shortName(m.Path)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []pair
	seen := map[[2]string]bool{}
	for _, p := range files { // WalkDir visits in lexical order
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if goAuthored(src) {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || ast.IsGenerated(f) {
			continue
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		cpath := path.Join(short, rel)
		var w *windows
		for _, d := range declDocs(f) {
			q, ok := maskedSentence(d.text, d.ident)
			if !ok {
				continue
			}
			decl := printNode(fset, d.node)
			code := capWords(local.CodeText(cpath, decl), opt.maxWords)
			if code == "" || seen[[2]string{q, code}] {
				continue
			}
			seen[[2]string{q, code}] = true
			pr := pair{Kind: "go", Mod: m.Path, File: rel, Ident: d.ident, Doc: q, Code: code, Original: synopsisOf(d.text), Raw: rawIf(opt.raw, decl)}
			if opt.window > 0 {
				if w == nil {
					w = strippedWindows(src, opt)
				}
				pr.Window = capWords(local.CodeText(cpath, w.around(d.decl)), opt.windowWords)
			}
			out = append(out, pr)
		}
	}
	return out, nil
}

// shortName is the last element of a module path without its major
// version suffix: go.uber.org/zap → zap, github.com/jackc/pgx/v5 → pgx.
func shortName(modPath string) string {
	p := modPath
	if b := path.Base(p); len(b) > 1 && b[0] == 'v' && strings.Trim(b[1:], "0123456789") == "" {
		p = path.Dir(p)
	}
	return path.Base(p)
}

// documented is a declaration with its doc comment.
type documented struct {
	ident string   // Name or Recv.Name
	text  string   // doc comment text
	node  ast.Node // the declaration, doc comment removed
	decl  int      // index in the file's Decls
}

// declDocs returns the documented functions, methods and types of f in
// source order, as the gostd eval collects them (exported or not).
func declDocs(f *ast.File) []documented {
	var out []documented
	for i, decl := range f.Decls {
		switch x := decl.(type) {
		case *ast.FuncDecl:
			if x.Doc == nil || x.Name.Name == "_" {
				continue
			}
			ident := x.Name.Name
			if x.Recv != nil {
				r := recvName(x.Recv)
				if r == "" {
					continue
				}
				ident = r + "." + ident
			}
			c := *x
			c.Doc = nil
			out = append(out, documented{ident, x.Doc.Text(), &c, i})
		case *ast.GenDecl:
			if x.Tok != token.TYPE {
				continue
			}
			for _, sp := range x.Specs {
				ts := sp.(*ast.TypeSpec)
				cg := ts.Doc
				if cg == nil && len(x.Specs) == 1 {
					cg = x.Doc
				}
				if cg == nil {
					continue
				}
				c := *ts
				c.Doc, c.Comment = nil, nil
				out = append(out, documented{ts.Name.Name, cg.Text(), &ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{&c}}, i})
			}
		}
	}
	return out
}

// windows is a source file with every comment removed and gofmt-ed (as
// the gostd eval's comment-stripped corpus), cut into line windows.
type windows struct {
	lines []string
	start []int // first line (0-based) of each top-level declaration
	opt   options
}

// strippedWindows parses src without comments and prints it back.
func strippedWindows(src []byte, opt options) *windows {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return &windows{opt: opt}
	}
	var b bytes.Buffer
	if format.Node(&b, fset, f) != nil {
		return &windows{opt: opt}
	}
	fset = token.NewFileSet()
	g, err := parser.ParseFile(fset, "", b.Bytes(), parser.SkipObjectResolution)
	if err != nil || len(g.Decls) != len(f.Decls) {
		return &windows{opt: opt}
	}
	w := &windows{lines: strings.Split(b.String(), "\n"), opt: opt}
	for _, d := range g.Decls {
		w.start = append(w.start, fset.Position(d.Pos()).Line-1)
	}
	return w
}

// around returns the first window (lines [k·step, k·step+window)) that
// holds the first line of declaration i, or "" if the file could not be
// reprinted.
func (w *windows) around(i int) string {
	if i >= len(w.start) {
		return ""
	}
	line := w.start[i]
	k := 0
	if line >= w.opt.window {
		k = (line-w.opt.window)/w.opt.step + 1
	}
	s := k * w.opt.step
	return strings.Join(w.lines[s:min(len(w.lines), s+w.opt.window)], "\n")
}

func recvName(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// printNode prints a declaration without any comment: go/printer prints
// free-floating comments only for a whole file, and the doc and line
// comments of fields and specs inside n are removed here first.
func printNode(fset *token.FileSet, n ast.Node) string {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Field:
			x.Doc, x.Comment = nil, nil
		case *ast.ValueSpec:
			x.Doc, x.Comment = nil, nil
		case *ast.TypeSpec:
			x.Doc, x.Comment = nil, nil
		case *ast.ImportSpec:
			x.Doc, x.Comment = nil, nil
		}
		return true
	})
	var b strings.Builder
	if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}).Fprint(&b, fset, n); err != nil {
		return ""
	}
	return b.String()
}

func synopsisOf(text string) string {
	return strings.Join(strings.Fields(synopsis(text)), " ")
}

// maskedSentence returns the first sentence of a doc comment with the
// identifier removed the way the gostd eval builds its queries (maskIdent).
// It reports false for deprecations and sentences under minWords words.
func maskedSentence(text, ident string) (string, bool) {
	return maskIdent(synopsisOf(text), ident)
}

// maskIdent removes identifier ident (Name or Recv.Name) from sentence s as
// the gostd eval masks its queries: a leading "Name ", "A Name ", "An Name "
// or "The Name " is cut, other whole-word occurrences of the name and of a
// method's receiver type become "it". It reports false for deprecations and
// sentences under minWords words once masked.
func maskIdent(s, ident string) (string, bool) {
	if strings.HasPrefix(s, "Deprecated") || strings.Contains(s, "Deprecated:") {
		return "", false
	}
	recv, name, isMethod := strings.Cut(ident, ".")
	if !isMethod {
		name = recv
	}
	q := s
	for _, pre := range []string{name + " ", "A " + name + " ", "An " + name + " ", "The " + name + " "} {
		if strings.HasPrefix(q, pre) {
			q = q[len(pre):]
			break
		}
	}
	q = wholeWord(name).ReplaceAllString(q, "it")
	if isMethod {
		q = wholeWord(recv).ReplaceAllString(q, "it")
	}
	q = strings.TrimSpace(q)
	if len(strings.Fields(q)) < minWords {
		return "", false
	}
	return q, true
}

func wholeWord(w string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`)
}

// capWords keeps the first n space-separated words of s.
func capWords(s string, n int) string {
	i := 0
	for k := 0; k < n; k++ {
		j := strings.IndexByte(s[i:], ' ')
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return s[:i-1]
}

// normSentence is the comparison form of a sentence: lower-case letter and
// digit runs separated by single spaces.
func normSentence(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}), " ")
}

// stdSentences returns the comparison forms of the first sentence of every
// comment in the Go tree under src (tests and commands included), and of
// each declaration's doc sentence masked as maskedSentence does.
func stdSentences(src string) (map[string]bool, error) {
	set := map[string]bool{}
	if _, err := os.Stat(src); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, b, parser.ParseComments|parser.SkipObjectResolution)
		if f == nil {
			return nil
		}
		for _, cg := range f.Comments {
			if s := normSentence(synopsisOf(cg.Text())); s != "" {
				set[s] = true
			}
		}
		for _, d := range declDocs(f) {
			if q, ok := maskedSentence(d.text, d.ident); ok {
				set[normSentence(q)] = true
			}
		}
		return nil
	})
	return set, err
}
