package store

import (
	"context"
	"slices"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// memberSep joins an archive's rel_path and a member path (lib/archive.Sep).
const memberSep = "!/"

// DropRepresentations tombstones the live representations of a document
// whose type is not in keep, with their chunks, and returns the number of
// chunks removed (a document whose text now comes from another kind of
// representation, or whose annotations went stale).
func (tx *Tx) DropRepresentations(docID int64, keep ...string) (int, error) {
	rows, err := tx.tx.Query("SELECT rep_id, rep_type FROM representations WHERE doc_id = ? AND deleted = 0", docID)
	if err != nil {
		return 0, err
	}
	var drop []int64
	for rows.Next() {
		var id int64
		var t string
		if err := rows.Scan(&id, &t); err != nil {
			rows.Close()
			return 0, err
		}
		if !slices.Contains(keep, t) {
			drop = append(drop, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, id := range drop {
		if _, err := tx.tx.Exec("UPDATE representations SET deleted = 1 WHERE rep_id = ?", id); err != nil {
			return n, err
		}
		ids, err := tx.liveChunkIDs("SELECT chunk_id FROM chunks WHERE rep_id = ? AND deleted = 0", id)
		if err != nil {
			return n, err
		}
		if err := tx.tombstoneChunks(ids); err != nil {
			return n, err
		}
		n += len(ids)
	}
	return n, nil
}

// LiveMembers returns the rel_paths of the live documents inside the
// archive at archiveRel ("a.zip" → "a.zip!/x.txt", nested ones included).
func (tx *Tx) LiveMembers(archiveRel string) ([]string, error) {
	lo, hi := prefixRange(archiveRel + memberSep)
	rows, err := tx.tx.Query("SELECT rel_path FROM documents WHERE rel_path >= ? AND rel_path < ? AND deleted = 0", lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// TombstoneMembers tombstones every live document inside the archive at
// archiveRel and returns the number of chunks removed.
func (tx *Tx) TombstoneMembers(archiveRel string) (int, error) {
	paths, err := tx.LiveMembers(archiveRel)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range paths {
		c, err := tx.TombstoneDocument(p)
		if err != nil {
			return n, err
		}
		n += c
	}
	return n, nil
}

// SetDocumentStatus records a live document's status and reason (a tool
// that produced a representation for a document that was waiting for a
// provider marks it ok).
func (tx *Tx) SetDocumentStatus(docID int64, status, code, reason string) error {
	if status == record.StatusOK {
		code, reason = "", ""
	}
	_, err := tx.tx.Exec(`UPDATE documents SET status = ?, error_code = NULLIF(?, ''), error = NULLIF(?, ''), updated_unix = ?
		WHERE doc_id = ?`, status, code, reason, tx.now, docID)
	return err
}

// RepChunkIDs returns the live chunk ids of a document's representation of
// repType, in ordinal order.
func (s *Store) RepChunkIDs(ctx context.Context, docID int64, repType string) ([]int64, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT c.chunk_id FROM chunks c JOIN representations r ON r.rep_id = c.rep_id
		WHERE r.doc_id = ? AND r.rep_type = ? AND r.deleted = 0 AND c.deleted = 0 ORDER BY c.ordinal`, docID, repType)
	if err != nil {
		return nil, wrapRead(err, "read chunks")
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, wrapRead(err, "read chunks")
		}
		out = append(out, id)
	}
	return out, wrapRead(rows.Err(), "read chunks")
}
