package retrieve

import (
	"cmp"
	"context"
	"slices"
	"strings"

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
//
// Equal scores are ordered by path, then chunk id (orderTies), and a tie
// at the limit is read whole before it is cut: which chunks make the cut,
// and in what order, does not depend on the order the chunks were indexed
// in (ids), so two indexes of one tree (a replica, a re-index) agree.
func (e *Engine) keywordSearch(ctx context.Context, kw *postings.Snapshot, gen store.Generation, x lexical.Expr, f store.ChunkFilter, limit int) ([]postings.Hit, error) {
	if x.Empty() || limit <= 0 || kw == nil {
		return nil, nil
	}
	q := postings.Query{Groups: x.Groups, Cols: columnSet(x.Cols), Weights: keywordWeights, Kinds: f.IndexKinds, Limit: limit + limit/2}
	rest := f
	rest.IndexKinds = nil
	if !rest.Empty() {
		q.Limit = limit * 8
	}
	for {
		hits, err := kw.Search(q)
		if err != nil {
			return nil, err
		}
		out := hits
		if !rest.Empty() {
			ids := make([]int64, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			out = make([]postings.Hit, 0, limit)
			err = e.passing(ctx, gen, ids, rest, len(hits), func(i int, _ store.ChunkRef) {
				out = append(out, hits[i])
			})
			if err != nil {
				return nil, err
			}
		}
		more := len(hits) == q.Limit // rows may be left unread
		switch {
		case more && len(out) < limit:
			// Too few passed the filters: read further.
		case more && hits[len(hits)-1].Score == out[limit-1].Score && q.Limit < maxTieRead*limit:
			// The last row read ties the limit's hit: read the rest of the tie.
		default:
			out = out[:tieEnd(out, limit)]
			if err := e.orderTies(ctx, gen, out); err != nil {
				return nil, err
			}
			return out[:min(limit, len(out))], nil
		}
		q.Limit *= 4
	}
}

// maxTieRead bounds how far keywordSearch reads for the end of a tie at
// its limit: a tie longer than maxTieRead·limit rows is cut by id.
const maxTieRead = 32

// tieEnd is the length of hits (best first) up to the end of the run of
// equal scores holding the limit-th: what orderTies must see to cut at
// limit.
func tieEnd(hits []postings.Hit, limit int) int {
	if len(hits) <= limit {
		return len(hits)
	}
	n := limit
	for n < len(hits) && hits[n].Score == hits[limit-1].Score {
		n++
	}
	return n
}

// orderTies sorts each run of equal scores in hits (best first) by path,
// then id.
func (e *Engine) orderTies(ctx context.Context, gen store.Generation, hits []postings.Hit) error {
	var tied []int64
	for i := range hits {
		if i > 0 && hits[i].Score == hits[i-1].Score || i+1 < len(hits) && hits[i].Score == hits[i+1].Score {
			tied = append(tied, hits[i].ID)
		}
	}
	if len(tied) == 0 {
		return nil
	}
	refs, err := e.refs(ctx, gen, tied)
	if err != nil {
		return err
	}
	slices.SortStableFunc(hits, func(a, b postings.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := strings.Compare(refs[a.ID].RelPath, refs[b.ID].RelPath); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return nil
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
