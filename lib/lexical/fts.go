package lexical

import "strings"

// Expr is an FTS5 MATCH expression. This file is the only place that writes
// FTS5 query syntax: every term is quoted, so user input can never inject
// operators, column filters or prefix queries. The zero Expr matches
// nothing; callers skip the query.
type Expr string

// Empty reports whether e matches nothing.
func (e Expr) Empty() bool { return strings.TrimSpace(string(e)) == "" }

// Term is an expression matching one token exactly (as the index's
// tokenizer sees it).
func Term(t string) Expr {
	return Expr(`"` + strings.ReplaceAll(t, `"`, `""`) + `"`)
}

// AnyOf matches rows holding at least one of terms ("" for none).
func AnyOf(terms []string) Expr {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(string(Term(t)))
	}
	return Expr(b.String())
}

// Both matches rows that match a and b; an empty side is ignored.
func Both(a, b Expr) Expr {
	switch {
	case a.Empty():
		return b
	case b.Empty():
		return a
	}
	return "(" + a + ") AND (" + b + ")"
}

// Full-text columns of the chunk index (see lib/store's chunks_fts).
const (
	ColPath  = "path"
	ColTitle = "title"
	ColBody  = "body"
)

// InColumns restricts e to the given full-text columns (none: all columns).
func InColumns(e Expr, cols ...string) Expr {
	if e.Empty() || len(cols) == 0 {
		return e
	}
	return Expr("{" + strings.Join(cols, " ") + "} : (" + string(e) + ")")
}
