package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
)

// termStats caches full-text document frequencies (how many chunks match a
// term, within a set of columns) and the live chunk count, each stamped
// with the generation and the time it was counted. A count of the
// generation a reader's snapshot is at is exact for that snapshot (every
// committed write bumps the generation), which is what ranking needs; term
// selection also takes counts up to a minute old (see freshFor).
type termStats struct {
	mu   sync.Mutex
	df   map[string]stamped // key: columns "\x00" term
	live stamped
}

type stamped struct {
	n   int64
	gen Generation
	at  time.Time
	ok  bool
}

// maxCachedTerms bounds the cache; it starts over when full.
const maxCachedTerms = 100000

func dfKey(cols []string, term string) string {
	return strings.Join(cols, " ") + "\x00" + term
}

// lookup returns the cached count of key if accept takes it.
func (c *termStats) lookup(key string, accept func(stamped) bool) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.df[key]; ok && accept(e) {
		return e.n, true
	}
	return 0, false
}

func (c *termStats) store(key string, e stamped) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.df == nil || len(c.df) >= maxCachedTerms {
		c.df = map[string]stamped{}
	}
	c.df[key] = e
}

// reader is a read pool or a read transaction.
type reader interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// countTerms counts the chunks matching each term: in one statement
// (d2m_count, see bm25.c) when it can, else one count(*) per term.
func countTerms(ctx context.Context, r reader, terms []string) ([]int64, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	k := newSink(len(terms))
	var phrases float64
	err := r.QueryRowContext(ctx, "SELECT d2m_count(chunks_fts, ?) FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1",
		int64(k), string(lexical.AnyOf(terms))).Scan(&phrases)
	counts := k.take(len(terms))
	switch {
	case errors.Is(err, sql.ErrNoRows): // no chunk holds any of them
		return make([]int64, len(terms)), nil
	case err != nil:
		return nil, wrapRead(err, "count terms")
	case int(phrases) == len(terms) && !slices.Contains(counts, -1):
		return counts, nil
	}
	for i, t := range terms { // terms and phrases do not line up
		err := r.QueryRowContext(ctx, "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?",
			string(lexical.Term(t))).Scan(&counts[i])
		if err != nil {
			return nil, wrapRead(err, "count term")
		}
	}
	return counts, nil
}

// cachedDocFreqs returns the document frequency of every term within
// cols counted at generation gen, -1 for those the cache lacks.
func (s *Store) cachedDocFreqs(gen Generation, cols, terms []string) (dfs []int64, missing bool) {
	dfs = make([]int64, len(terms))
	for i, t := range terms {
		if n, ok := s.stats.lookup(dfKey(cols, t), func(e stamped) bool { return e.gen == gen }); ok {
			dfs[i] = n
		} else {
			dfs[i], missing = -1, true
		}
	}
	return dfs, missing
}

// keepDocFreqs caches the counts a query took (-1: not taken).
func (s *Store) keepDocFreqs(gen Generation, cols, terms []string, dfs []int64) {
	now := time.Now()
	for i, t := range terms {
		if dfs[i] >= 0 {
			s.stats.store(dfKey(cols, t), stamped{n: dfs[i], gen: gen, at: now, ok: true})
		}
	}
}

// freshFor is how old a count TermStats may return is: term selection only
// steers which rows get scored, so while indexing writes it need not
// recount common words on every search.
const freshFor = time.Minute

// TermStats returns the document frequency of each term over all columns
// and the number of live chunks, from counts of the current generation or
// at most freshFor old; what it counts, it counts in one snapshot.
func (s *Store) TermStats(ctx context.Context, terms []string) (map[string]int64, int64, error) {
	gen, err := s.Generation(ctx)
	if err != nil {
		return nil, 0, err
	}
	if out, live, ok := s.cachedTermStats(gen, terms); ok {
		return out, live, nil
	}
	var out map[string]int64
	var live int64
	err = s.inSnapshot(ctx, func(tx *sql.Tx, gen Generation) error {
		usable := selectable(gen, time.Now())
		s.stats.mu.Lock()
		l := s.stats.live
		s.stats.mu.Unlock()
		if !usable(l) {
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM chunks WHERE deleted = 0").Scan(&l.n); err != nil {
				return wrapRead(err, "count chunks")
			}
			l = stamped{n: l.n, gen: gen, at: time.Now(), ok: true}
			s.stats.mu.Lock()
			s.stats.live = l
			s.stats.mu.Unlock()
		}
		live = l.n
		out = make(map[string]int64, len(terms))
		var missing []string
		for _, t := range terms {
			if n, ok := s.stats.lookup(dfKey(nil, t), usable); ok {
				out[t] = n
			} else {
				missing = append(missing, t)
			}
		}
		counts, err := countTerms(ctx, tx, missing)
		if err != nil {
			return err
		}
		s.keepDocFreqs(gen, nil, missing, counts)
		for i, t := range missing {
			out[t] = counts[i]
		}
		return nil
	})
	return out, live, err
}

// selectable reports whether a count may serve term selection at
// generation gen: counted at gen, or less than freshFor ago.
func selectable(gen Generation, now time.Time) func(stamped) bool {
	return func(e stamped) bool { return e.ok && (e.gen == gen || now.Sub(e.at) < freshFor) }
}

// cachedTermStats is TermStats when the cache holds everything it needs.
func (s *Store) cachedTermStats(gen Generation, terms []string) (map[string]int64, int64, bool) {
	usable := selectable(gen, time.Now())
	c := &s.stats
	c.mu.Lock()
	defer c.mu.Unlock()
	if !usable(c.live) {
		return nil, 0, false
	}
	out := make(map[string]int64, len(terms))
	for _, t := range terms {
		e, ok := c.df[dfKey(nil, t)]
		if !ok || !usable(e) {
			return nil, 0, false
		}
		out[t] = e.n
	}
	return out, c.live.n, true
}

// inSnapshot runs fn in a read transaction, with the generation its
// snapshot is at.
func (s *Store) inSnapshot(ctx context.Context, fn func(tx *sql.Tx, gen Generation) error) error {
	tx, err := s.rd.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return wrapRead(err, "begin read")
	}
	defer tx.Rollback()
	var g int64
	err = tx.QueryRowContext(ctx, "SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'generation'").Scan(&g)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return wrapRead(err, "read generation")
	}
	return fn(tx, Generation(g))
}

// DropSearchCaches forgets the cached term counts and row lengths, as a
// write does for searches at the new generation. For benchmarks of
// searches while indexing writes.
func (s *Store) DropSearchCaches() {
	s.stats.mu.Lock()
	s.stats.df, s.stats.live = nil, stamped{}
	s.stats.mu.Unlock()
	s.dropLens()
	s.lens.mu.Lock()
	s.lens.seen = -1 // the generation is new again: lengths load once it holds
	s.lens.mu.Unlock()
}
