package chunk

import "strings"

// Code splits source code into windows of at most opt.MaxLines lines and
// opt.MaxChars bytes, consecutive windows sharing up to opt.OverlapLines
// lines (never more than half a window or half of MaxChars).
//
// A window that must end early prefers, within its last quarter, to end
// between top-level declarations (a blank line or a column-0 closing
// bracket followed by a column-0 declaration or its leading comment), then
// after a column-0 closing bracket, then before a column-0 declaration, then
// after a blank line; ties go to the latest line. The overlap likewise starts
// at the best such boundary within its range. A single line longer than
// MaxChars (minified code) is split into several pieces citing that line.
// Text that fits in one window is one piece.
func Code(text string, opt CodeOptions) []Piece {
	opt = opt.normalized()
	x := newLineIndex(text)
	n := x.n()
	var out []Piece
	for s := 0; s < n; {
		for s < n && x.blank(s) {
			s++
		}
		if s >= n {
			break
		}
		e := x.fitLines(s, min(s+opt.MaxLines, n), opt.MaxChars)
		if e == s {
			out, _ = x.appendSplitLine(out, s, opt.MaxChars, 0, true)
			s++
			continue
		}
		b := e
		if e < n {
			b = x.codeBreak(s, e)
		}
		out = x.appendPiece(out, s, b)
		if b >= n {
			break
		}
		if next := x.codeOverlapStart(s, b, opt); x.size(next, b+1) <= opt.MaxChars {
			s = next
		} else {
			// Line b does not fit after the overlap: repeating the overlap
			// would only duplicate this piece's tail.
			s = b
		}
	}
	for i := range out {
		out[i].Context = x.definedNames(out[i].Span.StartLine-1, out[i].Span.EndLine)
	}
	return out
}

// codeBreak picks where the window [s, e) ends, e < n: the best-scoring
// boundary in its last quarter, else e.
func (x *lineIndex) codeBreak(s, e int) int {
	lo := max(s+1, e-(e-s)/4)
	best, bestScore := e, 0
	for b := e; b >= lo; b-- {
		if sc := x.codeScore(b); sc > bestScore {
			best, bestScore = b, sc
		}
	}
	return best
}

// codeOverlapStart picks where the window after one ending at b starts.
func (x *lineIndex) codeOverlapStart(s, b int, opt CodeOptions) int {
	if opt.OverlapLines == 0 {
		return b
	}
	lo := max(b-opt.OverlapLines, s+(b-s+1)/2)
	for lo < b && x.size(lo, b) > opt.MaxChars/2 {
		lo++
	}
	if lo >= b {
		return b
	}
	// Only starts that repeat some non-blank line are worth considering.
	limit := b - 1
	for limit >= lo && x.blank(limit) {
		limit--
	}
	best, bestScore := lo, 0
	for c := lo; c <= limit; c++ {
		if sc := x.codeScore(c); sc > bestScore {
			best, bestScore = c, sc
		}
	}
	return best
}

// codeScore rates a chunk boundary just before line b (0 < b <= n).
func (x *lineIndex) codeScore(b int) int {
	if b <= 0 {
		return 0
	}
	prev := x.line(b - 1)
	closer := isCloser(prev)
	top := b < x.n() && x.topLevelStart(b)
	switch {
	case top && (closer || isBlank(prev)):
		return 4
	case closer:
		return 3
	case top:
		return 2
	case isBlank(prev):
		return 1
	}
	return 0
}

// topLevelStart reports whether line b starts a top-level declaration: a
// column-0 declaration keyword, decorator or attribute, or a column-0
// comment that follows a blank line or closer (a declaration's doc comment).
func (x *lineIndex) topLevelStart(b int) bool {
	l := x.line(b)
	if l == "" || l[0] == ' ' || l[0] == '\t' {
		return false
	}
	if isComment(l) {
		if b == 0 {
			return true
		}
		prev := x.line(b - 1)
		return isBlank(prev) || isCloser(prev)
	}
	return isDecl(l)
}

// declKeywords start a top-level declaration when they open a column-0
// line and are followed by a space, tab, "(" or "<".
var declKeywords = []string{
	"func", "type", "class", "def", "async", "fn", "pub", "impl", "interface",
	"export", "package", "const", "var", "let", "struct", "enum", "trait",
	"mod", "module", "namespace", "template", "public", "private",
	"protected", "internal", "static", "abstract", "final", "sealed", "data",
	"object", "import", "function", "typedef", "union", "extern", "macro",
	"defmodule", "defp", "local", "sub", "proc", "val", "override", "record",
	"message", "service", "program", "procedure", "library", "contract",
}

func isDecl(l string) bool {
	switch l[0] {
	case '@': // decorator / annotation
		return len(l) > 1 && isIdentByte(l[1])
	case '#':
		return strings.HasPrefix(l, "#[") || strings.HasPrefix(l, "#define") || strings.HasPrefix(l, "#include")
	}
	if !isIdentByte(l[0]) {
		return false
	}
	for _, kw := range declKeywords {
		if len(l) > len(kw) && l[0] == kw[0] && strings.HasPrefix(l, kw) {
			switch l[len(kw)] {
			case ' ', '\t', '(', '<':
				return true
			}
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isComment reports whether a column-0 line opens or continues a comment.
func isComment(l string) bool {
	for _, p := range []string{"//", "/*", "#", "--", ";;", "\"\"\"", "(*", "%"} {
		if strings.HasPrefix(l, p) {
			return !(p == "#" && (strings.HasPrefix(l, "#[") || strings.HasPrefix(l, "#define") || strings.HasPrefix(l, "#include")))
		}
	}
	return false
}

// isCloser reports whether l is a column-0 line of only closing brackets
// and separators ("}", "};", "})", ")", "]", ...) or a bare "end".
func isCloser(l string) bool {
	if l == "" {
		return false
	}
	switch l[0] {
	case '}', ')', ']':
	default:
		t := strings.TrimRight(l, " \t")
		return t == "end" || t == "end;" || t == "fi" || t == "esac" || t == "done"
	}
	for i := 1; i < len(l); i++ {
		switch l[i] {
		case '}', ')', ']', ';', ',', ' ', '\t':
		default:
			return false
		}
	}
	return true
}
