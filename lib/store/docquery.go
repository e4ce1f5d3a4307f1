package store

import "context"

// DocQuery selects live documents by their metadata (find, list_files,
// status). Zero fields select everything, but for MaxSize (see there).
type DocQuery struct {
	PathPrefix string
	// Within keeps only rel_paths under these prefixes (a credential's
	// scope; see Within); nil = anywhere.
	Within []string
	// After keeps only rel_paths sorting after it (keyset paging).
	After    string
	DocTypes []string
	// MinSize and MaxSize bound size_bytes, inclusive; MaxSize < 0 is no
	// upper bound.
	MinSize, MaxSize int64
	// ModifiedSince (inclusive) and ModifiedBefore (exclusive) bound
	// mtime_unix; 0 is unbounded.
	ModifiedSince, ModifiedBefore int64
	// HideCodes leaves out documents whose error_code is one of these;
	// OnlyCodes keeps only those whose error_code is one of these.
	HideCodes, OnlyCodes []string
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
	// and adds a condition when it applies.
	and := func(applies bool, cond string, vals ...any) {
		if applies {
			where += " AND " + cond
			args = append(args, vals...)
		}
	}
	lo, hi := prefixRange(q.PathPrefix)
	and(q.PathPrefix != "", "rel_path >= ? AND rel_path < ?", lo, hi)
	cond, within := withinSQL("rel_path", q.Within)
	and(cond != "", cond, within...)
	and(q.After != "", "rel_path > ?", q.After)
	and(len(q.DocTypes) > 0, "doc_type IN ("+placeholders(len(q.DocTypes))+")", strs(q.DocTypes)...)
	and(q.MinSize > 0, "size_bytes >= ?", q.MinSize)
	and(q.MaxSize >= 0, "size_bytes <= ?", q.MaxSize)
	and(q.ModifiedSince != 0, "mtime_unix >= ?", q.ModifiedSince)
	and(q.ModifiedBefore != 0, "mtime_unix < ?", q.ModifiedBefore)
	and(len(q.HideCodes) > 0, "COALESCE(error_code, '') NOT IN ("+placeholders(len(q.HideCodes))+")", strs(q.HideCodes)...)
	and(len(q.OnlyCodes) > 0, "error_code IN ("+placeholders(len(q.OnlyCodes))+")", strs(q.OnlyCodes)...)
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

// strs converts strings to query arguments.
func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}
