package store

import "context"

// DocQuery selects live documents by their metadata (find, list_files).
// Zero fields select everything.
type DocQuery struct {
	PathPrefix string
	// After keeps only rel_paths sorting after it (keyset paging).
	After    string
	DocTypes []string
	// MinSize and MaxSize bound size_bytes, inclusive; MaxSize < 0 is no
	// upper bound.
	MinSize, MaxSize int64
	// ModifiedSince (inclusive) and ModifiedBefore (exclusive) bound
	// mtime_unix; 0 is unbounded.
	ModifiedSince, ModifiedBefore int64
	// HideCodes leaves out documents whose error_code is one of these.
	HideCodes []string
}

// listCols are the columns of a listing: Documents fills only RelPath,
// DocType, SizeBytes, MtimeUnix, Status, ErrorCode, Error and Deleted.
const listCols = `rel_path, doc_type, size_bytes, mtime_unix, status, COALESCE(error_code, ''), COALESCE(error, ''), deleted`

// Documents returns the live documents matching q in rel_path order, those
// keep accepts (nil keeps all), at most limit of them (0 = all), with
// their listing fields (listCols).
func (s *Store) Documents(ctx context.Context, q DocQuery, keep func(Doc) bool, limit int) ([]Doc, error) {
	where := " WHERE deleted = 0"
	var args []any
	if q.PathPrefix != "" {
		lo, hi := prefixRange(q.PathPrefix)
		where += " AND rel_path >= ? AND rel_path < ?"
		args = append(args, lo, hi)
	}
	if q.After != "" {
		where += " AND rel_path > ?"
		args = append(args, q.After)
	}
	if len(q.DocTypes) > 0 {
		where += " AND doc_type IN (" + placeholders(len(q.DocTypes)) + ")"
		for _, t := range q.DocTypes {
			args = append(args, t)
		}
	}
	if q.MinSize > 0 {
		where += " AND size_bytes >= ?"
		args = append(args, q.MinSize)
	}
	if q.MaxSize >= 0 {
		where += " AND size_bytes <= ?"
		args = append(args, q.MaxSize)
	}
	if q.ModifiedSince != 0 {
		where += " AND mtime_unix >= ?"
		args = append(args, q.ModifiedSince)
	}
	if q.ModifiedBefore != 0 {
		where += " AND mtime_unix < ?"
		args = append(args, q.ModifiedBefore)
	}
	if len(q.HideCodes) > 0 {
		where += " AND COALESCE(error_code, '') NOT IN (" + placeholders(len(q.HideCodes)) + ")"
		for _, c := range q.HideCodes {
			args = append(args, c)
		}
	}
	rows, err := s.rd.QueryContext(ctx, "SELECT "+listCols+" FROM documents"+where+" ORDER BY rel_path", args...)
	if err != nil {
		return nil, wrapRead(err, "list documents")
	}
	defer rows.Close()
	var out []Doc
	for rows.Next() {
		var d Doc
		err := rows.Scan(&d.RelPath, &d.DocType, &d.SizeBytes, &d.MtimeUnix, &d.Status, &d.ErrorCode, &d.Error, &d.Deleted)
		if err != nil {
			return nil, wrapRead(err, "list documents")
		}
		if keep != nil && !keep(d) {
			continue
		}
		out = append(out, d)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, wrapRead(rows.Err(), "list documents")
}
