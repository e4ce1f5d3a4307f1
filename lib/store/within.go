package store

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/archive"
)

// Within reports whether rel falls under one of prefixes, each a directory
// ("docs/") or a file ("README.md", which also covers its archive members
// "README.zip!/…"); no prefixes means everywhere. It is the path test of a
// credential's scope (corpus.Scope), shared with the SQL of withinSQL.
func Within(rel string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		t := strings.TrimSuffix(p, "/")
		if rel == t || strings.HasPrefix(rel, t+"/") || strings.HasPrefix(rel, t+archive.Sep) {
			return true
		}
	}
	return false
}

// withinSQL is Within as a SQL condition on column col, with its
// arguments; "" when prefixes is empty.
func withinSQL(col string, prefixes []string) (string, []any) {
	if len(prefixes) == 0 {
		return "", nil
	}
	var conds []string
	var args []any
	for _, p := range prefixes {
		t := strings.TrimSuffix(p, "/")
		dlo, dhi := prefixRange(t + "/")
		alo, ahi := prefixRange(t + archive.Sep)
		conds = append(conds, "("+col+" = ? OR ("+col+" >= ? AND "+col+" < ?) OR ("+col+" >= ? AND "+col+" < ?))")
		args = append(args, t, dlo, dhi, alo, ahi)
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}
