package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"runtime"
	"strconv"
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
	DocType     string
	Lang        string
}

// DocStates returns the state of every known file document (archive
// members excluded) keyed by rel_path.
func (s *Store) DocStates(ctx context.Context) (map[string]DocState, error) {
	m := make(map[string]DocState, 1024)
	err := s.EachDocState(ctx, func(p string, d DocState) { m[p] = d })
	return m, err
}

// DocRowsBound returns an upper bound of the number of document rows (the
// highest doc_id), read from the end of the table.
func (s *Store) DocRowsBound(ctx context.Context) (int64, error) {
	var n int64
	err := s.queryRow(ctx, "SELECT COALESCE(max(doc_id), 0) FROM documents").Scan(&n)
	return n, wrapRead(err, "read documents")
}

// EachDocState calls fn with the state of every known file document
// (archive members excluded), in no particular order. Reason is set only
// for documents whose status is not ok (an ok document has none).
//
// The rows are read in batches, each batch as one value SQLite formats
// (docStateBatch): stepping through 78k rows one by one costs more in the
// driver than the formatting in SQLite (CPU 0.15-0.18 s against ~0.1 s on
// the Linux source), and this is the read a no-op index run waits for. A
// batch that does not decode (a NUL in a name, which no file system
// allows, would cut SQLite's formatting short) is read row by row. The
// strings fn gets share each batch's memory.
func (s *Store) EachDocState(ctx context.Context, fn func(relPath string, d DocState)) error {
	var lo, hi int64
	if err := s.queryRow(ctx, "SELECT COALESCE(min(doc_id), 1), COALESCE(max(doc_id), 0) FROM documents").Scan(&lo, &hi); err != nil {
		return wrapRead(err, "read documents")
	}
	// Large indexes are read in ranges of doc_id at once, one connection
	// each: SQLite's work is most of the read, and a restart waits for it.
	parts := int64(1)
	if hi-lo > 4*docStateBatchRows {
		parts = int64(max(1, runtime.GOMAXPROCS(0)))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type batch struct {
		es  []docEntry
		err error
	}
	span := (hi - lo + parts) / parts
	out := make([]chan batch, parts)
	for i := range parts {
		ch := make(chan batch, 2)
		out[i] = ch
		from, to := lo-1+i*span, min(hi, lo-1+(i+1)*span)
		go func() {
			defer close(ch)
			for after := from; after < to; {
				es, last, err := s.docStateBatch(ctx, after, to)
				if err == nil && len(es) == 0 {
					return
				}
				select {
				case ch <- batch{es, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
				after = last
			}
		}()
	}
	for _, ch := range out {
		for b := range ch {
			if b.err != nil {
				return b.err
			}
			for _, e := range b.es {
				fn(e.path, e.DocState)
			}
		}
	}
	return ctx.Err()
}

// docStateBatch reads the states of up to docStateBatchRows file documents
// with doc_id in (after, to], and the highest doc_id it read.
func (s *Store) docStateBatch(ctx context.Context, after, to int64) ([]docEntry, int64, error) {
	var n, last int64
	var b string
	if err := s.queryRow(ctx, docStateBatch, after, docStateBatchRows, to).Scan(&n, &last, &b); err != nil {
		return nil, 0, wrapRead(err, "read documents")
	}
	if n == 0 {
		return nil, after, nil
	}
	es, err := parseDocStates(b, n, make([]docEntry, 0, n))
	if err != nil {
		es, err = s.docStateRows(ctx, after, last, es[:0])
	}
	return es, last, err
}

// docStateBatchRows is how many documents one docStateBatch reads.
const docStateBatchRows = 8192

// docStateBatch reads the states of up to ?2 file documents after doc_id ?1
// and up to ?3 as one string: per document, its fields in order, a number as
// "<decimal>,", a text as "<byte length>:<bytes>", the reason (free text)
// in hexadecimal.
const docStateBatch = `SELECT count(*), COALESCE(max(doc_id), 0), COALESCE(group_concat(rec, ''), '') FROM (
  SELECT doc_id, format('%d:%s%d,%d,%d:%s%d:%s%d:%s%d:%s%d,%d:%s%d:%s',
    octet_length(rel_path), rel_path, size_bytes, mtime_ns,
    octet_length(content_hash), content_hash, octet_length(status), status,
    octet_length(COALESCE(error_code, '')), COALESCE(error_code, ''),
    octet_length(r), r, deleted, octet_length(doc_type), doc_type, octet_length(lang), lang) AS rec
  FROM (SELECT *, iif(status = 'ok', '', hex(COALESCE(error, ''))) AS r FROM documents
    WHERE source_type = 'file' AND doc_id > ?1 AND doc_id <= ?3 ORDER BY doc_id LIMIT ?2))`

// docEntry is one document's state, as a batch decodes it.
type docEntry struct {
	path string
	DocState
}

// parseDocStates decodes a docStateBatch value of n documents, appending
// them to out.
func parseDocStates(b string, n int64, out []docEntry) ([]docEntry, error) {
	r := batchReader{b: b}
	for ; n > 0 && !r.bad; n-- {
		p := r.str()
		d := DocState{SizeBytes: r.num(), MtimeNs: r.num(), ContentHash: r.str(), Status: r.str(), Code: r.str()}
		if h := r.str(); h != "" {
			b, err := hex.DecodeString(h)
			r.bad = r.bad || err != nil
			d.Reason = string(b)
		}
		d.Deleted = r.num() != 0
		d.DocType, d.Lang = r.str(), r.str()
		out = append(out, docEntry{p, d})
	}
	if r.bad || r.b != "" {
		return out, errors.New("malformed document batch")
	}
	return out, nil
}

// docStateRows reads the states of the file documents with doc_id in
// (after, last] row by row, appending them to out.
func (s *Store) docStateRows(ctx context.Context, after, last int64, out []docEntry) ([]docEntry, error) {
	rows, err := s.rd.QueryContext(ctx,
		`SELECT rel_path, size_bytes, mtime_ns, content_hash, status, COALESCE(error_code, ''),
		 iif(status = 'ok', '', COALESCE(error, '')), deleted, doc_type, lang
		 FROM documents WHERE source_type = 'file' AND doc_id > ? AND doc_id <= ?`, after, last)
	if err != nil {
		return nil, wrapRead(err, "read documents")
	}
	defer rows.Close()
	for rows.Next() {
		var e docEntry
		var deleted int64
		if err := rows.Scan(&e.path, &e.SizeBytes, &e.MtimeNs, &e.ContentHash, &e.Status, &e.Code, &e.Reason, &deleted,
			&e.DocType, &e.Lang); err != nil {
			return nil, wrapRead(err, "read documents")
		}
		e.Deleted = deleted != 0
		out = append(out, e)
	}
	return out, wrapRead(rows.Err(), "read documents")
}

// batchReader reads the fields of a docStateBatch value in order; a
// malformed one sets bad.
type batchReader struct {
	b   string
	bad bool
}

func (r *batchReader) num() int64 {
	i := strings.IndexByte(r.b, ',')
	if i <= 0 || r.bad {
		r.bad = true
		return 0
	}
	v, err := strconv.ParseInt(r.b[:i], 10, 64)
	r.b, r.bad = r.b[i+1:], err != nil
	return v
}

func (r *batchReader) str() string {
	i := strings.IndexByte(r.b, ':')
	if i <= 0 || r.bad {
		r.bad = true
		return ""
	}
	l, err := strconv.Atoi(r.b[:i])
	if err != nil || l < 0 || l > len(r.b)-i-1 {
		r.bad = true
		return ""
	}
	v := r.b[i+1 : i+1+l]
	r.b = r.b[i+1+l:]
	return v
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
