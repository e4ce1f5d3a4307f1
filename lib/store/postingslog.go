package store

// The postings log. The keyword index (lib/postings) lives in files beside
// meta.sqlite; the store records every change of a chunk's full-text
// content in the postings_log table, in the transaction that makes it:
// a chunk added, re-indexed under a new title, or deleted, and a reset
// (every chunk removed). The log's sequence numbers give the changes'
// commit order; the index records the last one it applied, so a change
// is never lost (a crash before the index catches up leaves it in the
// log) and the index can be rebuilt from the store at any time.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
)

// KeyStoreID is the settings key of the store's random id: a keyword
// index records the store it reflects, so one built from another
// meta.sqlite (restored, replaced) is rebuilt rather than trusted.
const KeyStoreID = "store_id"

// PostingsChange is one logged change of a chunk's full-text content.
type PostingsChange struct {
	Seq int64
	// ChunkID is the chunk changed; 0 records a reset: every chunk
	// logged before is gone.
	ChunkID int64
	// Live reports whether the chunk exists (with the content below);
	// false: it was deleted.
	Live bool
	Kind string
	// Path, Title and Body are the full-text columns when Prepared: the
	// indexed text of the document's path, its title with the chunk's
	// heading trail, and the chunk's text (see Columns). Changes read back
	// from the store carry the raw fields instead, for the reader to
	// prepare (in parallel).
	Prepared          bool
	Path, Title, Body string
	// Raw fields (when not Prepared).
	RelPath, DocTitle, Context, Text string
}

// Columns returns c's full-text columns, preparing them from the raw
// fields when needed.
func (c PostingsChange) Columns() (path, title, body string) {
	if c.Prepared {
		return c.Path, c.Title, c.Body
	}
	return lexical.IndexText(c.RelPath), withTrail(lexical.IndexText(c.DocTitle), c.Context), lexical.IndexText(c.Text)
}

// PostingsMaintainer keeps the keyword index in step with the store
// (lib/postings.Maintainer); a store runs at most one, attached by its
// opener.
type PostingsMaintainer interface {
	// Sync returns once the index holds every change committed before.
	Sync(ctx context.Context) error
	// Close stops maintaining.
	Close()
}

// AttachPostings makes m the store's keyword index maintainer: Close
// stops it before closing the store, SyncPostings waits for it.
func (s *Store) AttachPostings(m PostingsMaintainer) {
	s.hookMu.Lock()
	s.maint = m
	s.hookMu.Unlock()
}

// AttachPostingsOnce attaches the maintainer mk makes unless one is
// attached already, and reports whether it attached one.
func (s *Store) AttachPostingsOnce(mk func() PostingsMaintainer) bool {
	s.attachMu.Lock()
	defer s.attachMu.Unlock()
	s.hookMu.Lock()
	has := s.maint != nil
	s.hookMu.Unlock()
	if has {
		return false
	}
	m := mk() // may register the hook (hookMu)
	s.hookMu.Lock()
	s.maint = m
	s.hookMu.Unlock()
	return true
}

// SyncPostings returns once the keyword index holds every change committed
// before the call (at once when no maintainer is attached).
func (s *Store) SyncPostings(ctx context.Context) error {
	s.hookMu.Lock()
	m := s.maint
	s.hookMu.Unlock()
	if m == nil {
		return nil
	}
	return m.Sync(ctx)
}

// OnPostings registers fn to receive, after each committed write
// transaction, the postings changes it made with their content, in
// order; fn runs on the committing goroutine and must not block. One
// function at a time; nil removes it. Without one, writes skip computing
// the content.
func (s *Store) OnPostings(fn func([]PostingsChange)) {
	s.hookMu.Lock()
	s.onPostings = fn
	s.hookMu.Unlock()
}

func (s *Store) postingsHook() func([]PostingsChange) {
	s.hookMu.Lock()
	defer s.hookMu.Unlock()
	return s.onPostings
}

// logPostings appends a change to the log (c.Seq is set here) and, when
// the transaction has a hook to tell, keeps it for the hook.
func (tx *Tx) logPostings(c PostingsChange) error {
	if err := tx.tx.QueryRow("INSERT INTO postings_log (chunk_id) VALUES (?) RETURNING seq", c.ChunkID).Scan(&c.Seq); err != nil {
		return err
	}
	if tx.hook != nil {
		tx.changes = append(tx.changes, c)
	}
	return nil
}

// indexChunk logs chunk id's full-text content (new, or re-indexed).
// The content is computed only for a hook.
func (tx *Tx) indexChunk(id int64, kind string, path, title func() string, body func() string) error {
	c := PostingsChange{ChunkID: id, Live: true, Kind: kind}
	if tx.hook != nil {
		c.Prepared, c.Path, c.Title, c.Body = true, path(), title(), body()
	}
	return tx.logPostings(c)
}

// PostingsLast returns the sequence number of the last change ever logged
// (0 for none), pruned entries included.
func (s *Store) PostingsLast(ctx context.Context) (int64, error) { return postingsLastIn(ctx, s.rd) }

// postingsLastIn is PostingsLast as q reads it.
func postingsLastIn(ctx context.Context, q queryer) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, "SELECT seq FROM sqlite_sequence WHERE name = 'postings_log'").Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, wrapRead(err, "read postings log")
}

// PostingsChanges returns up to limit logged changes after seq after, in
// order, each with the chunk's current raw content (Live false for a chunk
// deleted since, or of a deleted document), read in one snapshot; last
// is the last sequence number logged in that snapshot. A change whose
// chunk changed again later carries the later content: applying the
// changes in order still ends in the store's state.
func (s *Store) PostingsChanges(ctx context.Context, after int64, limit int) (changes []PostingsChange, last int64, err error) {
	err = s.inSnapshot(ctx, func(tx *sql.Tx, _ Generation) error {
		var err error
		if last, err = postingsLastIn(ctx, tx); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, "SELECT seq, chunk_id FROM postings_log WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
		if err != nil {
			return wrapRead(err, "read postings log")
		}
		var ids []int64
		for rows.Next() {
			var c PostingsChange
			if err := rows.Scan(&c.Seq, &c.ChunkID); err != nil {
				rows.Close()
				return wrapRead(err, "read postings log")
			}
			changes = append(changes, c)
			if c.ChunkID != 0 {
				ids = append(ids, c.ChunkID)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return wrapRead(err, "read postings log")
		}
		content, err := postingsContent(ctx, tx, ids)
		if err != nil {
			return err
		}
		for i := range changes {
			if c, ok := content[changes[i].ChunkID]; ok {
				c.Seq = changes[i].Seq
				changes[i] = c
			}
		}
		return nil
	})
	return changes, last, err
}

// contentQuery selects the raw content of live chunks (see eachContent);
// callers append further conditions.
const contentQuery = `
SELECT c.chunk_id, c.index_kind, d.rel_path, d.title, c.context, c.text
FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
WHERE c.deleted = 0 AND d.deleted = 0`

// PostingsRows returns up to limit live chunks with chunk_id > afterID, in
// id order, with their raw content (Seq 0): what a keyword index rebuilt from
// the store holds.
func (s *Store) PostingsRows(ctx context.Context, afterID int64, limit int) ([]PostingsChange, error) {
	rows, err := s.rd.QueryContext(ctx, contentQuery+` AND c.chunk_id > ? ORDER BY c.chunk_id LIMIT ?`, afterID, limit)
	if err != nil {
		return nil, wrapRead(err, "read chunks")
	}
	var out []PostingsChange
	if err := eachContent(rows, func(c PostingsChange) { out = append(out, c) }); err != nil {
		return nil, err
	}
	return out, nil
}

// postingsContent reads the content of the live chunks among ids.
func postingsContent(ctx context.Context, tx *sql.Tx, ids []int64) (map[int64]PostingsChange, error) {
	out := make(map[int64]PostingsChange, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 2000)
		rows, err := tx.QueryContext(ctx, contentQuery+` AND c.chunk_id IN `+idSet, idsJSON(ids[:n]))
		if err != nil {
			return nil, wrapRead(err, "read chunks")
		}
		if err := eachContent(rows, func(c PostingsChange) { out[c.ChunkID] = c }); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// eachContent calls fn with each row of rows (a contentQuery) as a live
// change, then closes rows.
func eachContent(rows *sql.Rows, fn func(PostingsChange)) error {
	defer rows.Close()
	for rows.Next() {
		c := PostingsChange{Live: true}
		if err := rows.Scan(&c.ChunkID, &c.Kind, &c.RelPath, &c.DocTitle, &c.Context, &c.Text); err != nil {
			return wrapRead(err, "read chunks")
		}
		fn(c)
	}
	return wrapRead(rows.Err(), "read chunks")
}

// PrunePostingsLog deletes the logged changes up to seq upTo (those a
// keyword index has applied).
func (s *Store) PrunePostingsLog(ctx context.Context, upTo int64) error {
	if s.wr == nil {
		return nil
	}
	return s.withRetry(ctx, func() error {
		_, err := s.wr.ExecContext(ctx, "DELETE FROM postings_log WHERE seq <= ?", upTo)
		if err != nil {
			return s.writeErr(fmt.Errorf("prune postings log: %w", err))
		}
		return nil
	})
}

// ID returns the store's id (see KeyStoreID).
func (s *Store) ID(ctx context.Context) (string, error) {
	return s.Setting(ctx, KeyStoreID)
}
