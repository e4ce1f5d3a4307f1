package retrieve

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// route is where a search looks and how it weighs the two indexes.
type route struct {
	used  string   // index_used reported to the client
	kinds []string // index kinds searched
	// codeWeight and textWeight scale fused scores per index kind. In auto
	// mode both indexes are always searched; a code-looking query only tilts
	// the balance, it never hides the text index (and vice versa).
	codeWeight, textWeight float64
}

func (r route) kindWeight(kind string) float64 {
	if kind == record.KindCode {
		return r.codeWeight
	}
	return r.textWeight
}

// codeTilt is the fused-score factor a code-looking query gives the code
// index in auto mode.
const codeTilt = 1.25

func chooseRoute(req Request, q *lexical.Query) route {
	switch req.Index {
	case IndexText:
		return route{used: IndexText, kinds: []string{record.KindText}, codeWeight: 1, textWeight: 1}
	case IndexCode:
		return route{used: IndexCode, kinds: []string{record.KindCode}, codeWeight: 1, textWeight: 1}
	case IndexBoth:
		return route{used: IndexBoth, kinds: []string{record.KindText, record.KindCode}, codeWeight: 1, textWeight: 1}
	}
	// auto: filters that can only match one kind decide; otherwise search both.
	if len(req.DocTypes) > 0 {
		code, text := false, false
		for _, t := range req.DocTypes {
			if t == record.DocCode {
				code = true
			} else {
				text = true
			}
		}
		if code && !text {
			return route{used: IndexCode, kinds: []string{record.KindCode}, codeWeight: 1, textWeight: 1}
		}
		if text && !code {
			return route{used: IndexText, kinds: []string{record.KindText}, codeWeight: 1, textWeight: 1}
		}
	}
	r := route{used: IndexBoth, kinds: []string{record.KindText, record.KindCode}, codeWeight: 1, textWeight: 1}
	if looksLikeCode(q) {
		r.codeWeight = codeTilt
	}
	return r
}

// LooksLikeCode reports whether a query reads as code (identifiers, call
// syntax, operators, keywords) rather than a plain-language question.
func LooksLikeCode(q string) bool { return looksLikeCode(lexical.Parse(q)) }

func looksLikeCode(pq *lexical.Query) bool {
	if len(pq.Idents) > 0 {
		return true
	}
	q := pq.Text
	if strings.ContainsAny(q, "(){}[];=<>") || strings.Contains(q, "::") || strings.Contains(q, "->") {
		return true
	}
	f := strings.Fields(q)
	if len(f) > 0 {
		switch f[0] {
		case "func", "def", "class", "import", "package", "#include", "struct", "interface", "fn", "impl", "const", "var", "type":
			return true
		}
	}
	// pkg.Func style selectors.
	for _, w := range f {
		if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 && !strings.HasSuffix(w, ".") {
			return true
		}
	}
	return false
}
