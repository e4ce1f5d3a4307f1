package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
)

// Counts summarises the store for status and stats.
type Counts struct {
	Documents       int64            // live documents
	ByStatus        map[string]int64 // live documents per status (ok, skipped, error)
	ByDocType       map[string]int64 // live, ok documents per doc_type
	Deleted         int64            // tombstoned documents
	Representations int64            // live representations
	Chunks          int64            // live chunks
	ChunksByKind    map[string]int64 // live chunks per index kind
	Embedded        int64            // live chunks with a vector
	Pending         int64            // live chunks awaiting a vector
	EmbedErrors     int64            // live chunks whose embedding failed
}

// countIn counts the totals inside a read transaction (Counts).
func countIn(ctx context.Context, tx *sql.Tx) (Counts, error) {
	c := Counts{ByStatus: map[string]int64{}, ByDocType: map[string]int64{}, ChunksByKind: map[string]int64{}}
	rows, err := tx.QueryContext(ctx, `SELECT deleted, status, doc_type, COUNT(*) FROM documents GROUP BY 1, 2, 3`)
	if err != nil {
		return c, wrapRead(err, "count documents")
	}
	for rows.Next() {
		var del bool
		var st, dt string
		var n int64
		if err := rows.Scan(&del, &st, &dt, &n); err != nil {
			rows.Close()
			return c, wrapRead(err, "count documents")
		}
		if del {
			c.Deleted += n
			continue
		}
		c.Documents += n
		c.ByStatus[st] += n
		if st == "ok" {
			c.ByDocType[dt] += n
		}
	}
	rows.Close()
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM representations WHERE deleted = 0").Scan(&c.Representations); err != nil {
		return c, wrapRead(err, "count representations")
	}
	rows, err = tx.QueryContext(ctx, `SELECT index_kind, embedding_status, COUNT(*) FROM chunks WHERE deleted = 0 GROUP BY 1, 2`)
	if err != nil {
		return c, wrapRead(err, "count chunks")
	}
	defer rows.Close()
	for rows.Next() {
		var kind, st string
		var n int64
		if err := rows.Scan(&kind, &st, &n); err != nil {
			return c, wrapRead(err, "count chunks")
		}
		c.Chunks += n
		c.ChunksByKind[kind] += n
		switch st {
		case "ok":
			c.Embedded += n
		case "pending":
			c.Pending += n
		case "error":
			c.EmbedErrors += n
		}
	}
	return c, wrapRead(rows.Err(), "count chunks")
}

// FormatCounts renders counts as "ok=9 skipped=4", keys in order.
func FormatCounts(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}
