package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
)

// ChunkFilter restricts which chunks a search may return.
type ChunkFilter struct {
	PathPrefix string
	// Within restricts hits to these rel_path prefixes (a credential's
	// scope; see Within), in SQL, before ranking.
	Within     []string
	DocTypes   []string
	IndexKinds []string
	// Match is an extra rel_path predicate (file_glob) applied after SQL.
	Match func(relPath string) bool
}

// Empty reports whether f accepts every chunk.
func (f ChunkFilter) Empty() bool {
	return f.PathPrefix == "" && len(f.Within) == 0 && len(f.DocTypes) == 0 && len(f.IndexKinds) == 0 && f.Match == nil
}

// Scored is a chunk id with a channel score (higher is better).
type Scored struct {
	ChunkID int64
	Score   float64
	RelPath string // set when the query joined documents
}

// FTSWeights are the BM25 column weights for path, title and body.
type FTSWeights struct{ Path, Title, Body float64 }

// DefaultFTSWeights favour a hit in a file's path or title over the body.
var DefaultFTSWeights = FTSWeights{Path: 2.0, Title: 3.0, Body: 1.0}

// LexicalSearch runs a full-text expression and returns up to limit chunks
// by BM25, best first, honouring f. The scores are FTS5's bm25() exactly;
// the document frequency of each phrase comes from a count cached for the
// generation the search's snapshot is at (termstats.go) instead of
// bm25()'s own walk over every phrase's whole doclist on every query (the
// first query of a generation walks them, as bm25() does, and keeps the
// counts), and each row's length from a table loaded per generation
// (doclens.go).
func (s *Store) LexicalSearch(ctx context.Context, match lexical.Expr, f ChunkFilter, w FTSWeights, limit int) ([]Scored, error) {
	if match.Empty() || limit <= 0 {
		return nil, nil
	}
	var out []Scored
	err := s.inSnapshot(ctx, func(tx *sql.Tx, gen Generation) error {
		terms, cols, ok := match.Phrases()
		if !ok {
			var err error
			out, err = lexicalQuery(ctx, tx, "d2m_bm25", match, f, w, nil, limit)
			return err
		}
		// The rows' lengths, a sink for the counts d2m_bm25 takes, and the
		// phrases' frequencies (see bm25.c).
		dfs, missing := s.cachedDocFreqs(gen, cols, terms)
		var sink sink
		if missing {
			sink = newSink(len(terms))
			defer func() { s.keepDocFreqs(gen, cols, terms, sink.take(len(terms))) }()
		}
		extra := []any{s.lensHandle(gen), int64(sink)}
		for _, n := range dfs {
			extra = append(extra, n)
		}
		var err error
		out, err = lexicalQuery(ctx, tx, "d2m_bm25", match, f, w, extra, limit)
		return err
	})
	return out, err
}

// LexicalSearchFTS5 is LexicalSearch ranked by FTS5's built-in bm25(),
// which counts every phrase's matching rows on every query: the reference
// LexicalSearch is tested and benchmarked against.
func (s *Store) LexicalSearchFTS5(ctx context.Context, match lexical.Expr, f ChunkFilter, w FTSWeights, limit int) ([]Scored, error) {
	if match.Empty() || limit <= 0 {
		return nil, nil
	}
	return lexicalQuery(ctx, s.rd, "bm25", match, f, w, nil, limit)
}

// querier is a read pool or a read transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// lexicalQuery ranks the rows matching match with the FTS5 ranking
// function rank (bm25, or d2m_bm25 with its extra arguments; see bm25.c).
func lexicalQuery(ctx context.Context, db querier, rank string, match lexical.Expr, f ChunkFilter, w FTSWeights, extra []any, limit int) ([]Scored, error) {
	var q strings.Builder
	args := []any{w.Path, w.Title, w.Body}
	q.WriteString(`SELECT f.rowid, -` + rank + `(chunks_fts, ?, ?, ?`)
	for _, a := range extra {
		q.WriteString(", ?")
		args = append(args, a)
	}
	q.WriteString(`) AS score`)
	args = append(args, string(match))
	join := !f.Empty()
	if join {
		q.WriteString(`, d.rel_path FROM chunks_fts f
JOIN chunks c ON c.chunk_id = f.rowid
JOIN documents d ON d.doc_id = c.doc_id
WHERE chunks_fts MATCH ?`)
		if f.PathPrefix != "" {
			lo, hi := prefixRange(f.PathPrefix)
			q.WriteString(" AND d.rel_path >= ? AND d.rel_path < ?")
			args = append(args, lo, hi)
		}
		if cond, a := withinSQL("d.rel_path", f.Within); cond != "" {
			q.WriteString(" AND " + cond)
			args = append(args, a...)
		}
		if len(f.DocTypes) > 0 {
			q.WriteString(" AND d.doc_type IN (" + placeholders(len(f.DocTypes)) + ")")
			for _, t := range f.DocTypes {
				args = append(args, t)
			}
		}
		if len(f.IndexKinds) > 0 {
			q.WriteString(" AND c.index_kind IN (" + placeholders(len(f.IndexKinds)) + ")")
			for _, k := range f.IndexKinds {
				args = append(args, k)
			}
		}
	} else {
		q.WriteString(`, '' FROM chunks_fts f WHERE chunks_fts MATCH ?`)
	}
	q.WriteString(" ORDER BY score DESC LIMIT ?")
	// A Go-side predicate needs headroom: fetch more and filter.
	fetch := limit
	if f.Match != nil {
		fetch = limit * 8
	}
	args = append(args, fetch)
	rows, err := db.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, wrapRead(err, "full-text search")
	}
	defer rows.Close()
	out := make([]Scored, 0, limit)
	for rows.Next() {
		var sc Scored
		if err := rows.Scan(&sc.ChunkID, &sc.Score, &sc.RelPath); err != nil {
			return nil, wrapRead(err, "full-text search")
		}
		if f.Match != nil && !f.Match(sc.RelPath) {
			continue
		}
		out = append(out, sc)
		if len(out) == limit {
			break
		}
	}
	return out, wrapRead(rows.Err(), "full-text search")
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
