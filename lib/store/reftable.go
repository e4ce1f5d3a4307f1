package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
)

// RefTable holds the ref of every live chunk of one generation, compactly:
// a slot per chunk id from the smallest to the largest, holding its
// document's index and its kind's (4 bytes a chunk id), and the live
// documents' paths and types once each. It is read-only once made.
type RefTable struct {
	gen   Generation
	base  int64    // the smallest chunk id
	slots []uint32 // id-base → doc index+1 << kindBits | kind index+1; 0 in either part: not live
	docs  []ChunkRef
	kinds []string
}

// kindBits is the bits of a slot that name the kind: up to 7 kinds.
const kindBits = 3

// ErrNoRefTable: the index does not fit a compact RefTable, its chunk ids
// spanning many more ids than there are chunks (a store re-indexed many
// times) or its chunks having more than 7 kinds; its refs are read chunk
// by chunk instead.
var ErrNoRefTable = errors.New("the index does not fit a ref table")

// maxRefSpread bounds the chunk id span of a RefTable: at most this many
// slots per chunk.
const maxRefSpread = 8

// RefTable reads the refs of every live chunk (of a live document) in one
// snapshot. It reads two indexes of the chunks and the documents table,
// not the chunk rows (ChunkRefs walks a chunk's text to reach its kind),
// so the whole index's refs cost about what ChunkRefs costs for a few
// thousand chunks. ErrNoRefTable when ids span more than
// maxRefSpread times the chunks, or with more than 7 kinds.
func (s *Store) RefTable(ctx context.Context) (*RefTable, error) {
	var t *RefTable
	err := s.inSnapshot(ctx, func(tx *sql.Tx, gen Generation) (err error) {
		t, err = readRefTable(ctx, tx, gen)
		return err
	})
	return t, err
}

// readRefTable reads the RefTable of generation gen in tx.
func readRefTable(ctx context.Context, tx *sql.Tx, gen Generation) (*RefTable, error) {
	t := &RefTable{gen: gen}
	var lo, hi sql.NullInt64
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT min(chunk_id), max(chunk_id), count(*) FROM chunks`).Scan(&lo, &hi, &n); err != nil {
		return nil, wrapRead(err, "read chunk refs")
	}
	if !lo.Valid {
		return t, nil // no chunks
	}
	if span := hi.Int64 - lo.Int64 + 1; span > maxRefSpread*max(n, 1024) {
		return nil, ErrNoRefTable
	}
	t.base, t.slots = lo.Int64, make([]uint32, hi.Int64-lo.Int64+1)
	docIndex := map[int64]uint32{}
	types := map[string]string{} // one string per document type
	err := eachRow(ctx, tx, `SELECT doc_id, rel_path, doc_type FROM documents WHERE deleted = 0`, func(rows *sql.Rows) error {
		var id int64
		var r ChunkRef
		if err := rows.Scan(&id, &r.RelPath, &r.DocType); err != nil {
			return err
		}
		if dt, ok := types[r.DocType]; ok {
			r.DocType = dt
		} else {
			types[r.DocType] = r.DocType
		}
		t.docs = append(t.docs, r)
		docIndex[id] = uint32(len(t.docs))
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, tx, `SELECT chunk_id, doc_id FROM chunks`, func(rows *sql.Rows) error {
		var id, doc int64
		err := rows.Scan(&id, &doc)
		if d := docIndex[doc]; d != 0 && err == nil && t.in(id) {
			t.slots[id-t.base] = d << kindBits
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	tooMany := false // kinds beyond what a slot can name
	err = eachRow(ctx, tx, `SELECT chunk_id, index_kind FROM chunks WHERE deleted = 0`, func(rows *sql.Rows) error {
		var id int64
		var kind string
		if err := rows.Scan(&id, &kind); err != nil || !t.in(id) || tooMany {
			return err
		}
		k := slices.Index(t.kinds, kind)
		if k < 0 {
			if len(t.kinds) == 1<<kindBits-1 {
				tooMany = true
				return nil
			}
			k = len(t.kinds)
			t.kinds = append(t.kinds, kind)
		}
		if t.slots[id-t.base] != 0 {
			t.slots[id-t.base] |= uint32(k + 1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if tooMany {
		return nil, ErrNoRefTable
	}
	return t, nil
}

// in reports whether id has a slot.
func (t *RefTable) in(id int64) bool { return id >= t.base && id-t.base < int64(len(t.slots)) }

// Generation is the generation the table was read at.
func (t *RefTable) Generation() Generation { return t.gen }

// Ref returns the ref of chunk id, and whether it is live.
func (t *RefTable) Ref(id int64) (ChunkRef, bool) {
	if !t.in(id) {
		return ChunkRef{}, false
	}
	v := t.slots[id-t.base]
	d, k := v>>kindBits, v&(1<<kindBits-1)
	if d == 0 || k == 0 {
		return ChunkRef{}, false
	}
	r := t.docs[d-1]
	r.IndexKind = t.kinds[k-1]
	return r, true
}

// eachRow runs query on tx and calls fn for each row.
func eachRow(ctx context.Context, tx *sql.Tx, query string, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return wrapRead(err, "read chunk refs")
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return wrapRead(err, "read chunk refs")
		}
	}
	return wrapRead(rows.Err(), "read chunk refs")
}
