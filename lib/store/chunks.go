package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// DocRef identifies the document a representation belongs to.
type DocRef struct {
	DocID   int64
	RelPath string
	Title   string
	DocType string
	Lang    string
	// TitleChanged re-indexes kept chunks' full-text rows under the new title.
	TitleChanged bool
}

// RepInput is a representation to store.
type RepInput struct {
	Type     string
	Hash     string
	MetaJSON string  // "" = "{}"
	Content  *string // stored text for non-file representations (OCR, transcripts); nil for raw_text
}

// ChunkInput is one chunk of a representation, in ordinal order.
type ChunkInput struct {
	Text string
	// Context is where the chunk sits in its document (a heading trail),
	// indexed with the title and embedded with the text.
	Context   string
	TextHash  string
	TokensEst int
	IndexKind string
	Span      record.Span
	// Lines maps the chunk's text lines to source lines when they are not
	// the file's own (HTML); nil otherwise. Stored in spans.extra_json.
	Lines srcmap.Map
	// IndexBody is lexical.IndexText(Text) when the caller made it (in
	// parallel, off the single writer); "" makes the store compute it.
	IndexBody string
}

// indexBody is what the keyword index holds as the chunk's body.
func (p ChunkInput) indexBody() string {
	if p.IndexBody != "" {
		return p.IndexBody
	}
	return lexical.IndexText(p.Text)
}

// RepResult reports what ReplaceRepresentation changed.
type RepResult struct {
	RepID     int64
	Unchanged bool           // rep_hash matched: nothing was touched
	Added     []record.Chunk // new chunks, embedding pending
	Kept      int            // chunks whose text (and vector) were reused
	Removed   int            // old chunks tombstoned
}

type oldChunk struct {
	id       int64
	hash     string
	kind     string
	embedded bool
}

// ReplaceRepresentation stores rep for doc with the given chunks (SPEC §7.6).
// If the representation's hash is unchanged nothing is written. Otherwise
// chunks whose text_hash and index kind match an existing chunk keep their
// chunk_id (and vector), with ordinal and span updated; the rest of the old
// chunks are tombstoned and new ones inserted as pending.
func (tx *Tx) ReplaceRepresentation(doc DocRef, rep RepInput, pieces []ChunkInput) (RepResult, error) {
	var res RepResult
	var oldHash string
	var repDeleted bool
	err := tx.tx.QueryRow("SELECT rep_id, rep_hash, deleted FROM representations WHERE doc_id = ? AND rep_type = ?",
		doc.DocID, rep.Type).Scan(&res.RepID, &oldHash, &repDeleted)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return res, err
	case oldHash == rep.Hash && !repDeleted:
		res.Unchanged = true
		return res, nil
	}
	meta := rep.MetaJSON
	if meta == "" {
		meta = "{}"
	}
	if res.RepID == 0 {
		err = tx.tx.QueryRow(`INSERT INTO representations (doc_id, rep_type, rep_hash, created_unix, meta_json, content)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING rep_id`, doc.DocID, rep.Type, rep.Hash, tx.now, meta, rep.Content).Scan(&res.RepID)
	} else {
		_, err = tx.tx.Exec(`UPDATE representations SET rep_hash = ?, created_unix = ?, meta_json = ?, content = ?, deleted = 0
			WHERE rep_id = ?`, rep.Hash, tx.now, meta, rep.Content, res.RepID)
	}
	if err != nil {
		return res, err
	}

	// Index the old live chunks by text hash + kind for reuse.
	rows, err := tx.tx.Query(`SELECT chunk_id, text_hash, index_kind, embedding_status = 'ok'
		FROM chunks WHERE rep_id = ? AND deleted = 0 ORDER BY ordinal`, res.RepID)
	if err != nil {
		return res, err
	}
	reuse := map[string][]oldChunk{}
	var olds []oldChunk
	for rows.Next() {
		var o oldChunk
		if err := rows.Scan(&o.id, &o.hash, &o.kind, &o.embedded); err != nil {
			rows.Close()
			return res, err
		}
		olds = append(olds, o)
		reuse[o.kind+"\x00"+o.hash] = append(reuse[o.kind+"\x00"+o.hash], o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, err
	}

	kept := map[int64]bool{}
	// The full-text columns, computed once and only if a postings hook
	// wants them (see indexChunk).
	pathText := sync.OnceValue(func() string { return lexical.IndexText(doc.RelPath) })
	titleText := sync.OnceValue(func() string { return lexical.IndexText(doc.Title) })
	for i, p := range pieces {
		key := p.IndexKind + "\x00" + p.TextHash
		if cands := reuse[key]; len(cands) > 0 {
			o := cands[0]
			reuse[key] = cands[1:]
			kept[o.id] = true
			res.Kept++
			if _, err := tx.tx.Exec("UPDATE chunks SET ordinal = ? WHERE chunk_id = ?", i, o.id); err != nil {
				return res, err
			}
			if err := tx.replaceSpan(o.id, p.Span, p.Lines); err != nil {
				return res, err
			}
			if doc.TitleChanged {
				if err := tx.indexChunk(o.id, p.IndexKind, pathText, func() string { return withTrail(titleText(), p.Context) }, p.indexBody); err != nil {
					return res, err
				}
			}
			continue
		}
		var id int64
		err := tx.tx.QueryRow(`INSERT INTO chunks (rep_id, doc_id, ordinal, text, context, text_hash, tokens_est, index_kind, embedding_status)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending') RETURNING chunk_id`,
			res.RepID, doc.DocID, i, p.Text, p.Context, p.TextHash, p.TokensEst, p.IndexKind).Scan(&id)
		if err != nil {
			return res, err
		}
		if err := tx.insertSpan(id, p.Span, p.Lines); err != nil {
			return res, err
		}
		if err := tx.indexChunk(id, p.IndexKind, pathText, func() string { return withTrail(titleText(), p.Context) }, p.indexBody); err != nil {
			return res, err
		}
		c := record.NewChunk()
		c.ChunkID, c.DocID, c.RepID = id, doc.DocID, res.RepID
		c.RelPath, c.DocType, c.Lang = doc.RelPath, doc.DocType, doc.Lang
		c.RepType, c.RepHash, c.Ordinal, c.IndexKind = rep.Type, rep.Hash, i, p.IndexKind
		c.Text, c.Context, c.TextHash, c.TokensEst, c.Span = p.Text, p.Context, p.TextHash, p.TokensEst, p.Span
		c.EmbeddingStatus = record.EmbedPending
		res.Added = append(res.Added, c)
	}
	var drop []int64
	for _, o := range olds {
		if !kept[o.id] {
			drop = append(drop, o.id)
		}
	}
	res.Removed = len(drop)
	return res, tx.tombstoneChunks(drop)
}

// withTrail adds a chunk's context to its document's title text: both are
// the chunk's "title" in the full-text index, weighted above its body.
func withTrail(titleText, context string) string {
	if context == "" {
		return titleText
	}
	return titleText + "\n" + lexical.IndexText(context)
}

func (tx *Tx) insertSpan(id int64, sp record.Span, lines srcmap.Map) error {
	if sp.Kind == "" {
		return nil
	}
	extra, err := spanExtra(lines)
	if err != nil {
		return err
	}
	_, err = tx.tx.Exec(`INSERT INTO spans (chunk_id, span_kind, start, "end", extra_json) VALUES (?, ?, ?, ?, ?)`,
		id, sp.Kind, sp.Start(), sp.End(), extra)
	return err
}

func (tx *Tx) replaceSpan(id int64, sp record.Span, lines srcmap.Map) error {
	if _, err := tx.tx.Exec("DELETE FROM spans WHERE chunk_id = ?", id); err != nil {
		return err
	}
	return tx.insertSpan(id, sp, lines)
}

// spanExtra is the spans.extra_json of a chunk: {"lines": map} for a
// mapped representation, NULL otherwise.
func spanExtra(lines srcmap.Map) (any, error) {
	if lines == nil {
		return nil, nil
	}
	b, err := json.Marshal(spanExtraJSON{Lines: lines})
	return string(b), err
}

type spanExtraJSON struct {
	Lines srcmap.Map `json:"lines,omitempty"`
}

func (tx *Tx) liveChunkIDs(q string, args ...any) ([]int64, error) {
	rows, err := tx.tx.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// tombstoneChunks marks chunks deleted and logs their removal from the
// keyword index.
func (tx *Tx) tombstoneChunks(ids []int64) error {
	for _, id := range ids {
		if err := tx.logPostings(PostingsChange{ChunkID: id}); err != nil {
			return err
		}
	}
	for len(ids) > 0 {
		n := min(len(ids), 500)
		in, args := inList(ids[:n])
		if _, err := tx.tx.Exec("UPDATE chunks SET deleted = 1 WHERE chunk_id IN ("+in+")", args...); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

func inList(ids []int64) (string, []any) {
	var b strings.Builder
	args := make([]any, len(ids))
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('?')
		args[i] = id
	}
	return b.String(), args
}

// ChunkMeta is what retrieval needs to turn a chunk id into a hit.
type ChunkMeta struct {
	ChunkID   int64
	DocID     int64
	RelPath   string
	DocType   string
	Lang      string
	Title     string
	RepType   string
	IndexKind string
	Text      string
	Span      record.Span
	// Lines maps Text's lines to source lines (nil: they are the file's).
	Lines srcmap.Map
}

// ChunkMetas returns metadata for the live chunks among ids (deleted or
// unknown ids are absent from the map).
func (s *Store) ChunkMetas(ctx context.Context, ids []int64) (map[int64]ChunkMeta, error) {
	out := make(map[int64]ChunkMeta, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.rd.QueryContext(ctx, `
SELECT c.chunk_id, c.doc_id, d.rel_path, d.doc_type, d.lang, d.title, r.rep_type, c.index_kind, c.text,
       COALESCE(sp.span_kind, ''), COALESCE(sp.start, 0), COALESCE(sp."end", 0), sp.extra_json
FROM chunks c
JOIN documents d ON d.doc_id = c.doc_id
JOIN representations r ON r.rep_id = c.rep_id
LEFT JOIN spans sp ON sp.chunk_id = c.chunk_id
WHERE c.chunk_id IN `+idSet+` AND c.deleted = 0 AND d.deleted = 0`, idsJSON(ids))
	if err != nil {
		return nil, wrapRead(err, "read chunks")
	}
	defer rows.Close()
	for rows.Next() {
		var m ChunkMeta
		var kind string
		var st, en int64
		var extra sql.NullString
		if err := rows.Scan(&m.ChunkID, &m.DocID, &m.RelPath, &m.DocType, &m.Lang, &m.Title, &m.RepType,
			&m.IndexKind, &m.Text, &kind, &st, &en, &extra); err != nil {
			return nil, wrapRead(err, "read chunks")
		}
		if kind != "" {
			m.Span = record.SpanFrom(kind, st, en)
		}
		if extra.Valid {
			var x spanExtraJSON
			if err := json.Unmarshal([]byte(extra.String), &x); err != nil {
				return nil, errcode.Wrap(errcode.StoreCorrupt, err, "chunk %d: spans.extra_json: %v", m.ChunkID, err)
			}
			m.Lines = x.Lines
		}
		out[m.ChunkID] = m
	}
	return out, wrapRead(rows.Err(), "read chunks")
}

// idSet is the SQL set of the ids a JSON array parameter lists (idsJSON):
// one statement text for any number of ids, so a connection prepares it
// once (see dsn).
const idSet = `(SELECT value FROM json_each(?))`

// idsJSON is ids as a JSON array.
func idsJSON(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// RepContent returns the stored text of a document's representation of
// repType (OCR pages, transcripts); ok is false when there is none.
func (s *Store) RepContent(ctx context.Context, docID int64, repType string) (content, metaJSON string, ok bool, err error) {
	var c sql.NullString
	err = s.queryRow(ctx, "SELECT content, meta_json FROM representations WHERE doc_id = ? AND rep_type = ? AND deleted = 0",
		docID, repType).Scan(&c, &metaJSON)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, wrapRead(err, fmt.Sprintf("read %s representation", repType))
	}
	return c.String, metaJSON, c.Valid, nil
}

// ResetContent discards every representation and chunk (logging the
// keyword index's reset) and forgets document hashes, so the next run
// rebuilds everything (reindex). Documents stay (as rows) so list_files
// keeps working meanwhile.
func (tx *Tx) ResetContent() error {
	if err := tx.logPostings(PostingsChange{}); err != nil {
		return err
	}
	for _, q := range []string{
		"DELETE FROM spans",
		"DELETE FROM chunks",
		"DELETE FROM representations",
		"UPDATE documents SET content_hash = '', mtime_ns = 0",
		"DELETE FROM settings WHERE key IN ('" + KeyScanPolicy + "')",
	} {
		if _, err := tx.tx.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

// ChunkRef is the lightweight metadata retrieval needs to filter and fuse
// candidates (no text).
type ChunkRef struct {
	RelPath   string
	DocType   string
	IndexKind string
}

// ChunkRefs returns refs for the live chunks among ids (deleted or unknown
// ids are absent from the map).
func (s *Store) ChunkRefs(ctx context.Context, ids []int64) (map[int64]ChunkRef, error) {
	out := make(map[int64]ChunkRef, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.rd.QueryContext(ctx, `SELECT c.chunk_id, d.rel_path, d.doc_type, c.index_kind
FROM chunks c JOIN documents d ON d.doc_id = c.doc_id
WHERE c.chunk_id IN `+idSet+` AND c.deleted = 0 AND d.deleted = 0`, idsJSON(ids))
	if err != nil {
		return nil, wrapRead(err, "read chunks")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var r ChunkRef
		if err := rows.Scan(&id, &r.RelPath, &r.DocType, &r.IndexKind); err != nil {
			return nil, wrapRead(err, "read chunks")
		}
		out[id] = r
	}
	return out, wrapRead(rows.Err(), "read chunks")
}

// ChunkContexts returns the context of the live chunks among ids that have
// one. It is kept apart from ChunkRefs: the context column follows the
// text in a chunk's row, so reading it walks a long text's overflow pages.
func (s *Store) ChunkContexts(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.rd.QueryContext(ctx, `SELECT chunk_id, context FROM chunks
WHERE chunk_id IN `+idSet+` AND deleted = 0 AND context != ''`, idsJSON(ids))
	if err != nil {
		return nil, wrapRead(err, "read chunk contexts")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var c string
		if err := rows.Scan(&id, &c); err != nil {
			return nil, wrapRead(err, "read chunk contexts")
		}
		out[id] = c
	}
	return out, wrapRead(rows.Err(), "read chunk contexts")
}
