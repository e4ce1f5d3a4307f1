package postings

import (
	"cmp"
	"runtime"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Query is a keyword search: the rows holding at least one term of every
// group, within the columns Cols, ranked by BM25 exactly as FTS5's bm25()
// ranks the MATCH expression the groups make (each term a quoted phrase,
// ORed within a group, the groups ANDed; phrases numbered left to right,
// a term in two groups counting twice), with column weights Weights.
type Query struct {
	// Groups are the terms as a user typed them; each is tokenized as
	// FTS5 tokenizes a quoted string (lowercased, stemmed). A term that
	// tokenizes to several tokens is matched as all of them in one column
	// (FTS5 would require them adjacent; the index keeps no positions).
	Groups [][]string
	// Cols restricts matching and counting to these columns (0: all).
	Cols ColumnSet
	// Weights are the BM25 weights of path, title and body.
	Weights [numCols]float64
	// Kinds, when set, restricts hits to rows of these index kinds.
	Kinds []string
	// Limit is the number of hits wanted.
	Limit int
}

// Hit is a row and its BM25 score (higher is better).
type Hit struct {
	ID    int64
	Score float64
}

// maxUnits bounds the distinct phrases of one query.
const maxUnits = 64

// unit is a distinct phrase of a query: its tokens and statistics.
type unit struct {
	tokens []string
	idf    float64
}

// damaged is the error of a search that panicked on a damaged segment
// (recovered: never a crash).
func damaged(r any) error {
	return errcode.New(errcode.StoreCorrupt, "keyword index: %v (run `dir2mcp reindex`)", r)
}

// bm25 constants of fts5_aux.c, as variables so that every operation is
// done in float64 exactly as the C code does it.
var k1, bParam = 1.2, 0.75

// Search returns the best q.Limit rows, best first (equal scores by
// ascending id).
func (s *Snapshot) Search(q Query) (hits []Hit, err error) {
	if s == nil || q.Limit <= 0 || s.live == 0 || len(q.Groups) == 0 {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil { // a damaged segment: never a crash
			hits, err = nil, damaged(r)
		}
		runtime.KeepAlive(s)
	}()
	cols := q.Cols
	if cols == 0 {
		cols = AllColumns
	}
	// Phrases in expression order, each mapped to a distinct unit.
	var units []unit
	var phraseUnit []int
	var groupUnits [][]int
	seen := map[string]int{}
	for _, g := range q.Groups {
		var gu []int
		for _, term := range g {
			toks, err := Tokens(term)
			if err != nil {
				return nil, err
			}
			key := strings.Join(toks, "\x00")
			u, ok := seen[key]
			if !ok {
				if len(units) == maxUnits {
					return nil, errcode.New(errcode.InvalidField, "query has more than %d distinct terms", maxUnits)
				}
				u = len(units)
				seen[key] = u
				units = append(units, unit{tokens: toks})
			}
			phraseUnit = append(phraseUnit, u)
			gu = append(gu, u)
		}
		if len(gu) == 0 {
			return nil, nil // an empty group matches nothing
		}
		groupUnits = append(groupUnits, gu)
	}
	n := float64(s.live)
	avgdl := float64(s.tokens) / n
	for i := range units {
		nHit := s.docFreq(units[i].tokens, cols)
		idf := clog((n - float64(nHit) + 0.5) / (float64(nHit) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		units[i].idf = idf
	}
	top := newTopHits(q.Limit)
	w := getWork(len(units))
	for si, g := range s.segs {
		s.searchSegment(si, g, &q, cols, units, phraseUnit, groupUnits, avgdl, w, top)
	}
	putWork(w) // not on a panic (putWork)
	return top.sorted(), nil
}

// docFreq returns how many live rows hold the unit of tokens within cols
// (all its tokens in one of those columns), cached per snapshot.
func (s *Snapshot) docFreq(tokens []string, cols ColumnSet) int64 {
	if len(tokens) == 0 {
		return 0
	}
	key := dfKey{cols: cols, term: strings.Join(tokens, "\x00")}
	s.dfMu.Lock()
	n, ok := s.df[key]
	s.dfMu.Unlock()
	if ok {
		return n
	}
	n = 0
	for si, g := range s.segs {
		n += s.segDocFreq(si, g, tokens, cols)
	}
	s.dfMu.Lock()
	if s.df == nil || len(s.df) >= maxCachedTerms {
		s.df = map[dfKey]int64{}
	}
	s.df[key] = n
	s.dfMu.Unlock()
	return n
}

// maxCachedTerms bounds a snapshot's document frequency cache.
const maxCachedTerms = 100_000

// DocFreq returns how many live rows hold term (tokenized as a query
// term) in any of cols (0: all columns).
func (s *Snapshot) DocFreq(term string, cols ColumnSet) (int64, error) {
	if s == nil {
		return 0, nil
	}
	if cols == 0 {
		cols = AllColumns
	}
	toks, err := Tokens(term)
	if err != nil {
		return 0, err
	}
	defer runtime.KeepAlive(s)
	return s.docFreq(toks, cols), nil
}

// topHits keeps the best k hits seen.
type topHits struct {
	k    int
	hits []Hit // a min-heap: the worst kept hit first
}

func newTopHits(k int) *topHits { return &topHits{k: k, hits: make([]Hit, 0, min(k, 1024))} }

// worse orders hits worst first: lower score, then higher id.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.ID > b.ID
}

// admits reports whether a hit scoring score may be kept: push decides
// ties, by id.
func (t *topHits) admits(score float64) bool {
	return len(t.hits) < t.k || score >= t.hits[0].Score
}

func (t *topHits) push(h Hit) {
	if len(t.hits) < t.k {
		t.hits = append(t.hits, h)
		for i := len(t.hits) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.hits[i], t.hits[p]) {
				break
			}
			t.hits[i], t.hits[p] = t.hits[p], t.hits[i]
			i = p
		}
		return
	}
	if !worse(t.hits[0], h) {
		return
	}
	t.hits[0] = h
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.hits) && worse(t.hits[l], t.hits[m]) {
			m = l
		}
		if r < len(t.hits) && worse(t.hits[r], t.hits[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.hits[i], t.hits[m] = t.hits[m], t.hits[i]
		i = m
	}
}

// sorted returns the kept hits, best first.
func (t *topHits) sorted() []Hit {
	out := slices.Clone(t.hits)
	slices.SortFunc(out, func(a, b Hit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}
