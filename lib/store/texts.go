package store

import (
	"context"
	"database/sql"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// TextRep is a live representation of an indexed document, as grep reads
// the index's text.
type TextRep struct {
	DocID     int64
	RelPath   string
	DocType   string
	ErrorCode string
	RepID     int64
	RepType   string
	RepHash   string
}

// TextReps returns the live representations of the given types of live,
// successfully indexed documents, in rel_path order.
func (s *Store) TextReps(ctx context.Context, repTypes []string) ([]TextRep, error) {
	args := make([]any, len(repTypes))
	for i, t := range repTypes {
		args[i] = t
	}
	rows, err := s.rd.QueryContext(ctx, `
SELECT d.doc_id, d.rel_path, d.doc_type, COALESCE(d.error_code, ''), r.rep_id, r.rep_type, r.rep_hash
FROM documents d JOIN representations r ON r.doc_id = d.doc_id
WHERE d.deleted = 0 AND d.status = 'ok' AND r.deleted = 0 AND r.rep_type IN (`+placeholders(len(repTypes))+`)
ORDER BY d.rel_path, r.rep_type`, args...)
	if err != nil {
		return nil, wrapRead(err, "read representations")
	}
	defer rows.Close()
	var out []TextRep
	for rows.Next() {
		var r TextRep
		if err := rows.Scan(&r.DocID, &r.RelPath, &r.DocType, &r.ErrorCode, &r.RepID, &r.RepType, &r.RepHash); err != nil {
			return nil, wrapRead(err, "read representations")
		}
		out = append(out, r)
	}
	return out, wrapRead(rows.Err(), "read representations")
}

// RepChunk is one stored chunk of a representation.
type RepChunk struct {
	Text string
	Span record.Span
}

// RepChunks calls fn once for each representation among repIDs that has
// live chunks, with them in ordinal order.
func (s *Store) RepChunks(ctx context.Context, repIDs []int64, fn func(repID int64, chunks []RepChunk) error) error {
	for len(repIDs) > 0 {
		n := min(len(repIDs), 500)
		in, args := inList(repIDs[:n])
		rows, err := s.rd.QueryContext(ctx, `
SELECT c.rep_id, c.text, COALESCE(sp.span_kind, ''), COALESCE(sp.start, 0), COALESCE(sp."end", 0)
FROM chunks c LEFT JOIN spans sp ON sp.chunk_id = c.chunk_id
WHERE c.rep_id IN (`+in+`) AND c.deleted = 0
ORDER BY c.rep_id, c.ordinal`, args...)
		if err != nil {
			return wrapRead(err, "read chunks")
		}
		if err := groupChunks(rows, fn); err != nil {
			rows.Close()
			return err
		}
		rows.Close()
		repIDs = repIDs[n:]
	}
	return nil
}

func groupChunks(rows *sql.Rows, fn func(int64, []RepChunk) error) error {
	var cur int64
	var group []RepChunk
	for rows.Next() {
		var id, st, en int64
		var c RepChunk
		var kind string
		if err := rows.Scan(&id, &c.Text, &kind, &st, &en); err != nil {
			return wrapRead(err, "read chunks")
		}
		if kind != "" {
			c.Span = record.SpanFrom(kind, st, en)
		}
		if id != cur && len(group) > 0 {
			if err := fn(cur, group); err != nil {
				return err
			}
			group = nil
		}
		cur = id
		group = append(group, c)
	}
	if err := rows.Err(); err != nil {
		return wrapRead(err, "read chunks")
	}
	if len(group) > 0 {
		return fn(cur, group)
	}
	return nil
}

// RepContents returns the stored content of the live representations
// among repIDs that have one (OCR pages, transcripts).
func (s *Store) RepContents(ctx context.Context, repIDs []int64) (map[int64]string, error) {
	out := make(map[int64]string, len(repIDs))
	for len(repIDs) > 0 {
		n := min(len(repIDs), 500)
		in, args := inList(repIDs[:n])
		rows, err := s.rd.QueryContext(ctx, "SELECT rep_id, content FROM representations WHERE rep_id IN ("+in+") AND deleted = 0 AND content IS NOT NULL", args...)
		if err != nil {
			return nil, wrapRead(err, "read representations")
		}
		for rows.Next() {
			var id int64
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				rows.Close()
				return nil, wrapRead(err, "read representations")
			}
			out[id] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, wrapRead(err, "read representations")
		}
		repIDs = repIDs[n:]
	}
	return out, nil
}
