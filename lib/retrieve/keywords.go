package retrieve

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// The keyword channel: BM25 over the keyword index (lib/postings), with
// FTS5's bm25() ranking and the column weights below.

// keywordWeights favour a hit in a file's path or title over the body.
var keywordWeights = [3]float64{postings.ColPath: 2.0, postings.ColTitle: 3.0, postings.ColBody: 1.0}

// keywords returns the keyword index snapshot a search reads (nil: none).
func (e *Engine) keywords() *postings.Snapshot {
	if e.Keywords == nil {
		return nil
	}
	return e.Keywords.Current()
}

// keywordSearch returns up to limit chunks matching x that pass f, best
// first. Index kinds are filtered in the index; other filters are applied
// to the best candidates, widening until limit pass or none are left, so
// the result is the filtered set's best limit. Without such filters the
// hits are the index's, and may include chunks deleted since it was built;
// with them, only live chunks are returned.
func (e *Engine) keywordSearch(ctx context.Context, kw *postings.Snapshot, gen store.Generation, x lexical.Expr, f store.ChunkFilter, limit int) ([]postings.Hit, error) {
	if x.Empty() || limit <= 0 || kw == nil {
		return nil, nil
	}
	q := postings.Query{Groups: x.Groups, Cols: columnSet(x.Cols), Weights: keywordWeights, Kinds: f.IndexKinds, Limit: limit}
	rest := f
	rest.IndexKinds = nil
	if rest.Empty() {
		return kw.Search(q)
	}
	q.Limit = limit * 8
	for {
		hits, err := kw.Search(q)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(hits))
		for i, h := range hits {
			ids[i] = h.ID
		}
		out := make([]postings.Hit, 0, limit)
		err = e.passing(ctx, gen, ids, rest, limit, func(i int, _ store.ChunkRef) {
			out = append(out, hits[i])
		})
		if err != nil {
			return nil, err
		}
		if len(out) == limit || len(hits) < q.Limit {
			return out, nil
		}
		q.Limit *= 4
	}
}

// columnSet maps lexical column names to a postings column set (none:
// all columns).
func columnSet(cols []string) postings.ColumnSet {
	var s postings.ColumnSet
	for _, c := range cols {
		switch c {
		case lexical.ColPath:
			s |= 1 << postings.ColPath
		case lexical.ColTitle:
			s |= 1 << postings.ColTitle
		case lexical.ColBody:
			s |= 1 << postings.ColBody
		}
	}
	return s
}
