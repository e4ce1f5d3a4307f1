package store

// Embedding state of chunks: which wait for a vector, which have one (and
// from which model), which were deleted and may leave the vector files.

import (
	"context"
)

// PendingChunk is a chunk awaiting a vector.
type PendingChunk struct {
	ChunkID   int64
	Text      string
	Context   string
	IndexKind string
	RelPath   string
	DocType   string
	Lang      string
}

// PendingChunks returns up to limit live pending chunks of kind with
// chunk_id > afterID, in chunk_id order.
func (s *Store) PendingChunks(ctx context.Context, kind string, afterID int64, limit int) ([]PendingChunk, error) {
	rows, err := s.rd.QueryContext(ctx, `
SELECT c.chunk_id, c.text, c.context, c.index_kind, d.rel_path, d.doc_type, d.lang
FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
WHERE c.index_kind = ? AND c.embedding_status = 'pending' AND c.deleted = 0 AND c.chunk_id > ?
ORDER BY c.chunk_id LIMIT ?`, kind, afterID, limit)
	if err != nil {
		return nil, wrapRead(err, "read pending chunks")
	}
	defer rows.Close()
	var out []PendingChunk
	for rows.Next() {
		var p PendingChunk
		if err := rows.Scan(&p.ChunkID, &p.Text, &p.Context, &p.IndexKind, &p.RelPath, &p.DocType, &p.Lang); err != nil {
			return nil, wrapRead(err, "read pending chunks")
		}
		out = append(out, p)
	}
	return out, wrapRead(rows.Err(), "read pending chunks")
}

// MarkEmbedded records that ids now have vectors made by model.
func (tx *Tx) MarkEmbedded(ids []int64, model string) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		in, args := inList(ids[:n])
		args = append([]any{model}, args...)
		if _, err := tx.tx.Exec("UPDATE chunks SET embedding_status = 'ok', embedding_error = NULL, embed_model = ? WHERE chunk_id IN ("+in+")", args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// MarkEmbedError records a per-chunk embedding failure.
func (tx *Tx) MarkEmbedError(id int64, msg string) error {
	_, err := tx.tx.Exec("UPDATE chunks SET embedding_status = 'error', embedding_error = ? WHERE chunk_id = ?", msg, id)
	return err
}

// ResetEmbeddings marks every live chunk of kind pending (after a model
// change) and returns how many were reset.
func (tx *Tx) ResetEmbeddings(kind string) (int64, error) {
	res, err := tx.tx.Exec(`UPDATE chunks SET embedding_status = 'pending', embedding_error = NULL, embed_model = NULL
		WHERE index_kind = ? AND deleted = 0 AND embedding_status != 'pending'`, kind)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// embeddedIDsQuery reads the index chunks_counts alone (never a chunk's
// row, which holds its text).
const embeddedIDsQuery = `SELECT chunk_id FROM chunks
	WHERE index_kind = ? AND deleted = 0 AND embedding_status = 'ok' AND embed_model = ?`

// EmbeddedIDs returns the set of live chunk ids of kind whose vectors were
// made by model.
func (s *Store) EmbeddedIDs(ctx context.Context, kind, model string) (map[int64]struct{}, error) {
	rows, err := s.rd.QueryContext(ctx, embeddedIDsQuery, kind, model)
	if err != nil {
		return nil, wrapRead(err, "read embedded chunks")
	}
	defer rows.Close()
	m := map[int64]struct{}{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, wrapRead(err, "read embedded chunks")
		}
		m[id] = struct{}{}
	}
	return m, wrapRead(rows.Err(), "read embedded chunks")
}

// DeletedChunkIDs returns the ids of chunks of kind that are deleted but
// not yet purged (PurgeDeletedChunks): the vectors a writer must drop.
func (s *Store) DeletedChunkIDs(ctx context.Context, kind string) ([]int64, error) {
	rows, err := s.rd.QueryContext(ctx, deletedOfKind, kind)
	if err != nil {
		return nil, wrapRead(err, "read deleted chunks")
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, wrapRead(err, "read deleted chunks")
		}
		ids = append(ids, id)
	}
	return ids, wrapRead(rows.Err(), "read deleted chunks")
}

// deletedOfKind selects the ids of the tombstoned chunks of kind ?1 as
// seeks in chunks_counts (index_kind, embedding_status, deleted, …): one
// per embedding status and one per range between them, so any status
// is covered. "deleted = 1 AND index_kind = ?" alone reads every index
// entry of the kind, at every vector flush of a run.
const deletedOfKind = `SELECT chunk_id FROM chunks WHERE index_kind = ?1 AND embedding_status IN ('error', 'ok', 'pending') AND deleted = 1
UNION ALL SELECT chunk_id FROM chunks WHERE index_kind = ?1 AND embedding_status < 'error' AND deleted = 1
UNION ALL SELECT chunk_id FROM chunks WHERE index_kind = ?1 AND embedding_status > 'error' AND embedding_status < 'ok' AND deleted = 1
UNION ALL SELECT chunk_id FROM chunks WHERE index_kind = ?1 AND embedding_status > 'ok' AND embedding_status < 'pending' AND deleted = 1
UNION ALL SELECT chunk_id FROM chunks WHERE index_kind = ?1 AND embedding_status > 'pending' AND deleted = 1`

// PurgeDeletedChunks removes tombstoned chunk rows (and spans) of kind whose
// vectors are no longer in the vector file, returning how many were removed.
func (tx *Tx) PurgeDeletedChunks(kind string) (int64, error) {
	if _, err := tx.tx.Exec(`DELETE FROM spans WHERE chunk_id IN (`+deletedOfKind+`)`, kind); err != nil {
		return 0, err
	}
	res, err := tx.tx.Exec(`DELETE FROM chunks WHERE chunk_id IN (`+deletedOfKind+`)`, kind)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// MarkPending sets chunks back to pending (their vectors were lost).
func (tx *Tx) MarkPending(ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), 500)
		in, args := inList(ids[:n])
		if _, err := tx.tx.Exec("UPDATE chunks SET embedding_status = 'pending', embed_model = NULL WHERE chunk_id IN ("+in+")", args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
