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

// Phrases returns the tokens of e's phrases (its quoted terms, unescaped)
// in the order FTS5 numbers them, and the columns e is restricted to (nil:
// all). ok is false when e has a column filter anywhere but around the
// whole expression, a shape this file never writes.
func (e Expr) Phrases() (terms, cols []string, ok bool) {
	s := strings.TrimSpace(string(e))
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return nil, nil, false
		}
		cols = strings.Fields(s[1:end])
		s = s[end+1:]
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			return nil, nil, false
		case '"':
			var t strings.Builder
			for i++; i < len(s); i++ {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						t.WriteByte('"')
						i++
						continue
					}
					break
				}
				t.WriteByte(s[i])
			}
			terms = append(terms, t.String())
		}
	}
	return terms, cols, true
}
