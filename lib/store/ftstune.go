package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
)

// ftsHashSize is the memory (bytes) FTS5 gathers new terms in before it
// writes them out as a segment (its default is 1 MB). Fewer, larger
// segments mean less merging while a large tree is indexed; the indexed
// terms, and so every search result, are the same.
const ftsHashSize = 8 << 20

// tuneFTS sets the full-text index's hashsize once (it is stored with the
// index); a store already set is left alone.
func tuneFTS(ctx context.Context, wr *sql.DB) error {
	var v string
	err := wr.QueryRowContext(ctx, "SELECT v FROM chunks_fts_config WHERE k = 'hashsize'").Scan(&v)
	if err == nil && v == strconv.Itoa(ftsHashSize) {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	_, err = wr.ExecContext(ctx, "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('hashsize', ?)", ftsHashSize)
	return err
}
