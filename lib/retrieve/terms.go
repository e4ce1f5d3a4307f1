package retrieve

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Term selection. BM25 in FTS5 costs about a microsecond and a half per
// row it scores, and an ORed query scores every row holding any of its
// terms; a few common words ("returns", "file") match most of a code base.
// So rows must contain one of the query's rarer terms: terms are taken
// rarest first while their document frequencies add up to at most
// rowBudget (always at least the rarest one). All terms still count in the
// BM25 score of those rows.
const rowBudget = 4000

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

// selectTerms returns the terms that bound the rows to score (see
// rowBudget); terms absent from the index are dropped. It falls back to all
// terms if statistics cannot be read.
func (e *Engine) selectTerms(ctx context.Context, terms []string) []string {
	if len(terms) <= 1 {
		return terms
	}
	dfs, _, err := e.termStats(ctx, terms)
	if err != nil {
		return terms
	}
	present := make([]string, 0, len(terms))
	for _, t := range terms {
		if dfs[t] > 0 {
			present = append(present, t)
		}
	}
	if len(present) == 0 {
		return terms // nothing matches anyway; let FTS say so
	}
	sort.SliceStable(present, func(i, j int) bool { return dfs[present[i]] < dfs[present[j]] })
	var keep []string
	var rows int64
	for _, t := range present {
		if len(keep) > 0 && rows+dfs[t] > rowBudget {
			break
		}
		keep = append(keep, t)
		rows += dfs[t]
	}
	return keep
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
