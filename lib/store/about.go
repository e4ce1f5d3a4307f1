package store

import (
	"context"
	"fmt"
	"strings"
)

// SetDocumentAbout stores the description and tags extracted for a
// document (shown as MCP resource metadata). Tags must not contain newlines.
func (tx *Tx) SetDocumentAbout(docID int64, description string, tags []string) error {
	_, err := tx.tx.Exec("UPDATE documents SET description = ?, tags = ? WHERE doc_id = ?",
		description, strings.Join(tags, "\n"), docID)
	return err
}

// Listing is what a directory listing needs to know about one live document.
type Listing struct {
	RelPath     string
	DocType     string
	Title       string
	Description string
	Tags        []string
	SizeBytes   int64
	MtimeUnix   int64
	Status      string
	ErrorCode   string
}

// Listings returns every live (not deleted) document in rel_path order.
func (s *Store) Listings(ctx context.Context) ([]Listing, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT rel_path, doc_type, title, description, tags, size_bytes, mtime_unix,
		status, COALESCE(error_code, '') FROM documents WHERE deleted = 0 ORDER BY rel_path`)
	if err != nil {
		return nil, wrapRead(err, "list documents")
	}
	defer rows.Close()
	var out []Listing
	for rows.Next() {
		var l Listing
		var tags string
		if err := rows.Scan(&l.RelPath, &l.DocType, &l.Title, &l.Description, &tags, &l.SizeBytes, &l.MtimeUnix,
			&l.Status, &l.ErrorCode); err != nil {
			return nil, wrapRead(err, "list documents")
		}
		if tags != "" {
			l.Tags = strings.Split(tags, "\n")
		}
		out = append(out, l)
	}
	return out, wrapRead(rows.Err(), "list documents")
}

// ListingsFingerprint summarises the live documents cheaply (one scan, no
// rows returned) so a poller can skip Listings when nothing changed. It
// changes when a document is added, removed, re-extracted in a later
// second, or its size, mtime, title, description or tags change length.
func (s *Store) ListingsFingerprint(ctx context.Context) (string, error) {
	var n, maxUpd, sumUpd, sumSize, sumMtime, sumText int64
	err := s.queryRow(ctx, `SELECT count(*), COALESCE(max(updated_unix), 0), COALESCE(sum(updated_unix), 0),
		COALESCE(sum(size_bytes), 0), COALESCE(sum(mtime_ns % 1000000007), 0),
		COALESCE(sum(length(title) + length(description) + length(tags) + length(status)), 0)
		FROM documents WHERE deleted = 0`).Scan(&n, &maxUpd, &sumUpd, &sumSize, &sumMtime, &sumText)
	if err != nil {
		return "", wrapRead(err, "fingerprint documents")
	}
	return fmt.Sprint(n, maxUpd, sumUpd, sumSize, sumMtime, sumText), nil
}
