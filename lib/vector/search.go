package vector

import (
	"runtime"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Hit is one search result.
type Hit struct {
	Label int64
	// Score is the dot product of the query and the stored vector: the
	// cosine similarity when both are L2-normalised.
	Score float32
}

// Search returns the k stored vectors with the highest dot product with q,
// best first; equal scores are ordered by ascending label, so results are
// deterministic. The search is exact: every vector is scored.
//
// accept, when non-nil, filters candidates (e.g. deleted chunks): a label
// is returned only if accept reports true. Search calls accept only for
// labels that would currently make the top k, at most once per label, on
// the calling goroutine. Search may run concurrently with other searches
// and with mutations; it holds the index's read lock while scanning.
//
// A query of the wrong dimension or with non-finite elements is an
// INVALID_FIELD error. Searching a nil or empty index returns no hits.
func (ix *Index) Search(q []float32, k int, accept func(label int64) bool) ([]Hit, error) {
	if ix == nil || k <= 0 {
		return nil, nil
	}
	if err := ix.checkVec(q, "query"); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if parts := min(runtime.GOMAXPROCS(0), len(ix.labels)/partMin, maxParts); parts > 1 && accept == nil {
		return scanParts(q, ix.dim, ix.labels, ix.vecs, k, parts), nil
	}
	return scan(q, ix.dim, ix.labels, ix.vecs, k, accept), nil
}

// A scan reads every stored vector once and is bound by memory bandwidth,
// which grows with the cores reading: an index of at least 2·partMin
// vectors is scanned in up to maxParts parts at once.
const (
	partMin  = 16384
	maxParts = 4
)

// scanParts is scan split into parts scanned concurrently, their top k
// merged (hits are totally ordered by score then label, so the result is
// exactly scan's).
func scanParts(q []float32, dim int, labels []int64, vecs []float32, k, parts int) []Hit {
	found := make([][]Hit, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(labels)/parts, (p+1)*len(labels)/parts
		part := func() { found[p] = scan(q, dim, labels[lo:hi], vecs[lo*dim:hi*dim], k, nil) }
		if p == parts-1 {
			part() // on the calling goroutine
		} else {
			wg.Go(part)
		}
	}
	wg.Wait()
	h := topK{hits: make([]Hit, 0, k), k: k}
	for _, hs := range found {
		for _, x := range hs {
			if h.admits(x.Score, x.Label) {
				h.push(x)
			}
		}
	}
	return h.sorted()
}

// scan is the exact brute-force top-k over labels/vecs.
func scan(q []float32, dim int, labels []int64, vecs []float32, k int, accept func(int64) bool) []Hit {
	n := len(labels)
	if n == 0 {
		return nil
	}
	h := topK{hits: make([]Hit, 0, min(k, n)), k: k}
	for i := 0; i < n; i++ {
		s := vek32.Dot(q, vecs[i*dim:(i+1)*dim])
		l := labels[i]
		if !h.admits(s, l) {
			continue
		}
		if accept != nil && !accept(l) {
			continue
		}
		h.push(Hit{Label: l, Score: s})
	}
	return h.sorted()
}

// topK keeps the k best hits in a min-heap whose root is the worst kept
// hit. "Better" means higher score, then lower label.
type topK struct {
	hits []Hit
	k    int
}

// better reports whether a ranks before b.
func better(a, b Hit) bool {
	return a.Score > b.Score || (a.Score == b.Score && a.Label < b.Label)
}

// admits reports whether a hit with score s and label l would enter.
func (t *topK) admits(s float32, l int64) bool {
	if len(t.hits) < t.k {
		return true
	}
	return better(Hit{Label: l, Score: s}, t.hits[0])
}

// push adds h, evicting the worst hit when full. The caller has checked
// admits.
func (t *topK) push(h Hit) {
	if len(t.hits) < t.k {
		t.hits = append(t.hits, h)
		t.up(len(t.hits) - 1)
		return
	}
	t.hits[0] = h
	t.down(0)
}

func (t *topK) up(i int) {
	a := t.hits
	for i > 0 {
		p := (i - 1) / 2
		if !better(a[p], a[i]) {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (t *topK) down(i int) {
	a := t.hits
	n := len(a)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && better(a[c], a[c+1]) {
			c++
		}
		if !better(a[i], a[c]) {
			return
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
}

// sorted empties the heap into a best-first slice.
func (t *topK) sorted() []Hit {
	a := t.hits
	out := make([]Hit, len(a))
	for i := len(a) - 1; i >= 0; i-- {
		out[i] = a[0]
		last := len(t.hits) - 1
		a[0] = a[last]
		t.hits = a[:last]
		t.down(0)
		a = t.hits
	}
	return out
}
