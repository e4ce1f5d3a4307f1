package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// DocState is what the store remembers about a path, for change detection.
type DocState struct {
	SizeBytes   int64
	MtimeNs     int64
	ContentHash string
	Status      string
	Code        string // error_code of a skipped/failed document
	Reason      string
	Deleted     bool
}

// DocStates returns the state of every known file document (archive
// members excluded) keyed by rel_path.
func (s *Store) DocStates(ctx context.Context) (map[string]DocState, error) {
	rows, err := s.rd.QueryContext(ctx,
		`SELECT rel_path, size_bytes, mtime_ns, content_hash, status, COALESCE(error_code, ''), COALESCE(error, ''), deleted
		 FROM documents WHERE source_type = 'file'`)
	if err != nil {
		return nil, wrapRead(err, "read documents")
	}
	defer rows.Close()
	m := make(map[string]DocState, 1024)
	for rows.Next() {
		var p string
		var d DocState
		if err := rows.Scan(&p, &d.SizeBytes, &d.MtimeNs, &d.ContentHash, &d.Status, &d.Code, &d.Reason, &d.Deleted); err != nil {
			return nil, wrapRead(err, "read documents")
		}
		m[p] = d
	}
	return m, wrapRead(rows.Err(), "read documents")
}

// Doc is a document row.
type Doc struct {
	DocID       int64
	RelPath     string
	SourceType  string
	DocType     string
	Lang        string
	SizeBytes   int64
	MtimeUnix   int64
	ContentHash string
	Status      string
	ErrorCode   string
	Error       string
	Title       string
	Deleted     bool
}

const docCols = `doc_id, rel_path, source_type, doc_type, lang, size_bytes, mtime_unix, content_hash,
	status, COALESCE(error_code, ''), COALESCE(error, ''), title, deleted`

func scanDoc(sc interface{ Scan(...any) error }) (Doc, error) {
	var d Doc
	err := sc.Scan(&d.DocID, &d.RelPath, &d.SourceType, &d.DocType, &d.Lang, &d.SizeBytes, &d.MtimeUnix,
		&d.ContentHash, &d.Status, &d.ErrorCode, &d.Error, &d.Title, &d.Deleted)
	return d, err
}

// Document returns the row for relPath; ok is false when it is unknown.
func (s *Store) Document(ctx context.Context, relPath string) (Doc, bool, error) {
	d, err := scanDoc(s.queryRow(ctx, "SELECT "+docCols+" FROM documents WHERE rel_path = ?", relPath))
	if errors.Is(err, sql.ErrNoRows) {
		return Doc{}, false, nil
	}
	if err != nil {
		return Doc{}, false, wrapRead(err, "read document")
	}
	return d, true, nil
}

// prefixRange turns a rel_path prefix into a half-open string range usable
// by the rel_path index. "a/b" matches "a/b", "a/b/..." and "a/bc".
func prefixRange(prefix string) (string, string) {
	return prefix, prefix + "\U0010FFFF"
}

// UpsertDocument records d (by rel_path) as present and returns its doc_id.
// title may be empty.
func (tx *Tx) UpsertDocument(d record.Document, title string) (int64, error) {
	var id int64
	err := tx.tx.QueryRow(`
INSERT INTO documents (rel_path, source_type, doc_type, lang, size_bytes, mtime_unix, mtime_ns, content_hash,
                       status, error_code, error, title, deleted, updated_unix)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?, 0, ?)
ON CONFLICT(rel_path) DO UPDATE SET
  source_type = excluded.source_type, doc_type = excluded.doc_type, lang = excluded.lang,
  size_bytes = excluded.size_bytes, mtime_unix = excluded.mtime_unix, mtime_ns = excluded.mtime_ns,
  content_hash = excluded.content_hash, status = excluded.status, error_code = excluded.error_code,
  error = excluded.error, title = excluded.title, deleted = 0, updated_unix = excluded.updated_unix
RETURNING doc_id`,
		d.RelPath, orDefault(d.SourceType, record.SourceFile), d.DocType, d.Lang, d.SizeBytes, d.MtimeUnix,
		d.MtimeNs, d.ContentHash, orDefault(d.Status, record.StatusOK), d.Code, d.Reason, title, tx.now).Scan(&id)
	return id, err
}

// TouchDocument updates size and mtimes of an unchanged document so the next
// scan can take its no-read shortcut. It reports whether a row was updated.
func (tx *Tx) TouchDocument(d record.Document) (bool, error) {
	res, err := tx.tx.Exec(`UPDATE documents SET size_bytes = ?, mtime_unix = ?, mtime_ns = ?
		WHERE rel_path = ? AND deleted = 0 AND (size_bytes != ? OR mtime_ns != ?)`,
		d.SizeBytes, d.MtimeUnix, d.MtimeNs, d.RelPath, d.SizeBytes, d.MtimeNs)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// DocumentID returns the doc_id for relPath, or 0 when unknown.
func (tx *Tx) DocumentID(relPath string) (int64, error) {
	var id int64
	err := tx.tx.QueryRow("SELECT doc_id FROM documents WHERE rel_path = ?", relPath).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// TombstoneDocument marks relPath deleted with all its representations and
// chunks, removing the chunks from the full-text index. It returns the number
// of chunks tombstoned; an unknown path is not an error.
func (tx *Tx) TombstoneDocument(relPath string) (int, error) {
	id, err := tx.DocumentID(relPath)
	if err != nil || id == 0 {
		return 0, err
	}
	if _, err := tx.tx.Exec("UPDATE documents SET deleted = 1, updated_unix = ? WHERE doc_id = ?", tx.now, id); err != nil {
		return 0, err
	}
	return tx.dropDocContent(id)
}

// ClearDocumentContent tombstones a live document's representations and
// chunks (for a document that is now skipped or failed) and returns the
// number of chunks removed.
func (tx *Tx) ClearDocumentContent(docID int64) (int, error) { return tx.dropDocContent(docID) }

func (tx *Tx) dropDocContent(docID int64) (int, error) {
	if _, err := tx.tx.Exec("UPDATE representations SET deleted = 1 WHERE doc_id = ? AND deleted = 0", docID); err != nil {
		return 0, err
	}
	ids, err := tx.liveChunkIDs("SELECT chunk_id FROM chunks WHERE doc_id = ? AND deleted = 0", docID)
	if err != nil {
		return 0, err
	}
	return len(ids), tx.tombstoneChunks(ids)
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// DocumentTitle returns the stored title of relPath ("" when unknown).
func (tx *Tx) DocumentTitle(relPath string) (string, error) {
	var t string
	err := tx.tx.QueryRow("SELECT title FROM documents WHERE rel_path = ?", relPath).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return t, err
}

// FlaggedMember returns the rel_path of one live member of archive relPath
// ("a.zip" → members "a.zip!/…", nested ones included) whose error_code is
// in codes, or "" when there is none.
func (s *Store) FlaggedMember(ctx context.Context, relPath string, codes []string) (string, error) {
	if len(codes) == 0 {
		return "", nil
	}
	lo, hi := prefixRange(relPath + "!/")
	args := []any{lo, hi}
	for _, c := range codes {
		args = append(args, c)
	}
	var p string
	err := s.queryRow(ctx, `SELECT rel_path FROM documents WHERE rel_path >= ? AND rel_path < ? AND deleted = 0
		AND error_code IN (`+placeholders(len(codes))+`) LIMIT 1`, args...).Scan(&p)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return p, wrapRead(err, "read archive members")
}
