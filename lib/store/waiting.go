package store

import "context"

// Waiting is a group of live documents skipped until a provider or mode
// allows them (error_code AWAITING_PROVIDER), by doc type and reason.
type Waiting struct {
	DocType string
	Reason  string
	Count   int64
}

// WaitingDocuments groups the documents waiting for a provider.
func (s *Store) WaitingDocuments(ctx context.Context) ([]Waiting, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT doc_type, COALESCE(error, ''), COUNT(*) FROM documents
		WHERE deleted = 0 AND status = 'skipped' AND error_code = 'AWAITING_PROVIDER'
		GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, wrapRead(err, "count waiting documents")
	}
	defer rows.Close()
	var out []Waiting
	for rows.Next() {
		var w Waiting
		if err := rows.Scan(&w.DocType, &w.Reason, &w.Count); err != nil {
			return nil, wrapRead(err, "count waiting documents")
		}
		out = append(out, w)
	}
	return out, wrapRead(rows.Err(), "count waiting documents")
}
