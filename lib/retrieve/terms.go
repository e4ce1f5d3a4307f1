package retrieve

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Term selection. A BM25 OR query costs time in proportion to the rows its
// terms match, and a term found in a large share of chunks adds almost no
// ranking signal (its IDF is near zero) while matching most of the index.
// Such terms are left out when the query has more selective ones.
const (
	// maxTermShare is the share of chunks above which a term is "common".
	maxTermShare = 0.2
	// minTerms is how many terms a query keeps even when all are common
	// (the rarest ones).
	minTerms = 2
)

// dfCache remembers term document frequencies for one index generation.
type dfCache struct {
	mu    sync.Mutex
	gen   store.Generation
	total int64
	df    map[string]int64
}

// lexicalMatch builds the FTS5 expression for a query's terms. Every term
// is ORed into the scored expression so BM25 weighs all of them, but when
// the query has selective terms, rows must also contain one of those: a
// row holding only common words ("returns", "the file") is not worth
// scoring, and scoring it is what makes an ORed query slow.
func (e *Engine) lexicalMatch(ctx context.Context, terms []string) string {
	all := lexical.MatchTerms(terms)
	sel := e.selectTerms(ctx, terms)
	if len(sel) == len(terms) || len(sel) == 0 {
		return all
	}
	return "(" + lexical.MatchTerms(sel) + ") AND (" + all + ")"
}

// selectTerms returns the terms worth querying: the selective ones, or the
// rarest minTerms when none is selective. Terms absent from the index are
// dropped. It falls back to all terms if statistics cannot be read.
func (e *Engine) selectTerms(ctx context.Context, terms []string) []string {
	if len(terms) <= 1 {
		return terms
	}
	dfs, total, err := e.termStats(ctx, terms)
	if err != nil || total == 0 {
		return terms
	}
	limit := int64(float64(total) * maxTermShare)
	var keep, common []string
	for _, t := range terms {
		switch n := dfs[t]; {
		case n == 0:
		case n <= limit:
			keep = append(keep, t)
		default:
			common = append(common, t)
		}
	}
	if len(keep) >= minTerms || len(common) == 0 {
		if len(keep) == 0 {
			return terms // nothing matches anyway; let FTS say so
		}
		return keep
	}
	sort.SliceStable(common, func(i, j int) bool { return dfs[common[i]] < dfs[common[j]] })
	return append(keep, common[:min(minTerms-len(keep), len(common))]...)
}

// termStats returns document frequencies for terms and the live chunk count,
// from the cache when the index has not changed since they were counted.
func (e *Engine) termStats(ctx context.Context, terms []string) (map[string]int64, int64, error) {
	gen, err := e.Store.Generation(ctx)
	if err != nil {
		return nil, 0, err
	}
	c := &e.dfs
	c.mu.Lock()
	if c.gen != gen || c.df == nil {
		c.gen, c.df, c.total = gen, map[string]int64{}, -1
	}
	out := make(map[string]int64, len(terms))
	var missing []string
	for _, t := range terms {
		if n, ok := c.df[t]; ok {
			out[t] = n
		} else {
			missing = append(missing, t)
		}
	}
	total := c.total
	c.mu.Unlock()
	if total < 0 {
		if total, err = e.Store.LiveChunks(ctx); err != nil {
			return nil, 0, err
		}
	}
	fresh := map[string]int64{}
	for _, t := range missing {
		n, err := e.Store.TermCount(ctx, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		if err != nil {
			return nil, 0, err
		}
		out[t], fresh[t] = n, n
	}
	c.mu.Lock()
	if c.gen == gen {
		c.total = total
		if len(c.df) > 50000 {
			c.df = map[string]int64{}
		}
		for t, n := range fresh {
			c.df[t] = n
		}
	}
	c.mu.Unlock()
	return out, total, nil
}
