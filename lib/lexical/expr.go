package lexical

import "strings"

// Expr is a keyword match expression: the rows holding at least one term
// of every group, within the columns Cols (none: all columns). Terms are
// words as typed; the keyword index tokenizes them (lib/postings), so no
// user input is ever syntax. The zero Expr matches nothing; callers skip
// the search.
type Expr struct {
	Groups [][]string
	Cols   []string
}

// Empty reports whether e matches nothing.
func (e Expr) Empty() bool {
	if len(e.Groups) == 0 {
		return true
	}
	for _, g := range e.Groups {
		if len(g) == 0 {
			return true
		}
	}
	return false
}

// Term is an expression matching one term.
func Term(t string) Expr { return Expr{Groups: [][]string{{t}}} }

// AnyOf matches rows holding at least one of terms (none: nothing).
func AnyOf(terms []string) Expr {
	if len(terms) == 0 {
		return Expr{}
	}
	return Expr{Groups: [][]string{append([]string(nil), terms...)}}
}

// Both matches rows that match a and b (both within the same columns); an
// empty side is ignored.
func Both(a, b Expr) Expr {
	switch {
	case a.Empty():
		return b
	case b.Empty():
		return a
	}
	return Expr{Groups: append(append([][]string(nil), a.Groups...), b.Groups...), Cols: a.Cols}
}

// Full-text columns of the chunk index (see lib/postings).
const (
	ColPath  = "path"
	ColTitle = "title"
	ColBody  = "body"
)

// InColumns restricts e to the given columns (none: all columns).
func InColumns(e Expr, cols ...string) Expr {
	if e.Empty() || len(cols) == 0 {
		return e
	}
	e.Cols = append([]string(nil), cols...)
	return e
}

// String renders e in FTS5 MATCH syntax, every term quoted (for logs and
// for comparing with FTS5 in tests).
func (e Expr) String() string {
	if e.Empty() {
		return ""
	}
	var groups []string
	for _, g := range e.Groups {
		ts := make([]string, len(g))
		for i, t := range g {
			ts[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
		}
		s := strings.Join(ts, " OR ")
		if len(e.Groups) > 1 {
			s = "(" + s + ")"
		}
		groups = append(groups, s)
	}
	s := strings.Join(groups, " AND ")
	if len(e.Cols) > 0 {
		s = "{" + strings.Join(e.Cols, " ") + "} : (" + s + ")"
	}
	return s
}
