package store

import (
	"slices"
	"strings"
)

// ChunkFilter restricts which chunks a search may return.
type ChunkFilter struct {
	PathPrefix string
	// Within restricts hits to these rel_path prefixes (a credential's
	// scope; see Within).
	Within     []string
	DocTypes   []string
	IndexKinds []string
	// Match is an extra rel_path predicate (file_glob).
	Match func(relPath string) bool
}

// Empty reports whether f accepts every chunk.
func (f ChunkFilter) Empty() bool {
	return f.PathPrefix == "" && len(f.Within) == 0 && len(f.DocTypes) == 0 && len(f.IndexKinds) == 0 && f.Match == nil
}

// Passes reports whether a chunk with ref r passes f.
func (f ChunkFilter) Passes(r ChunkRef) bool {
	if f.PathPrefix != "" && !strings.HasPrefix(r.RelPath, f.PathPrefix) || !Within(r.RelPath, f.Within) {
		return false
	}
	if len(f.DocTypes) > 0 && !slices.Contains(f.DocTypes, r.DocType) {
		return false
	}
	if len(f.IndexKinds) > 0 && !slices.Contains(f.IndexKinds, r.IndexKind) {
		return false
	}
	return f.Match == nil || f.Match(r.RelPath)
}

// placeholders is n SQL parameter markers, comma separated.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
