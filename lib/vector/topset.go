package vector

import "math"

// topSet gathers the k best hits in no particular order, for scans that
// pass many rows: a hit that may belong is appended, and when 2k have
// gathered the best k are kept (a selection, not a sort) and the worst of
// them becomes the bar a hit must pass. It keeps the same k hits as topK
// ("better" is a total order: labels are distinct) at a fraction of the
// heap's work when most rows early in a scan would enter.
type topSet struct {
	hits []Hit
	k    int
	bar  Hit  // the worst kept hit, once full
	full bool // k hits are kept and bar is set
}

func newTopSet(k int) topSet { return topSet{hits: make([]Hit, 0, 2*k), k: k} }

// newTopSetAbove is newTopSet admitting only hits scoring at least bar
// (as if a hit scoring bar with the largest label were kept): it keeps
// the k best of those, fewer when fewer pass.
func newTopSetAbove(k int, bar float32) topSet {
	t := newTopSet(k)
	t.bar, t.full = Hit{Label: math.MaxInt64, Score: bar}, true
	return t
}

// admits reports whether a hit with score s and label l may be among the
// k best.
func (t *topSet) admits(s float32, l int64) bool {
	return !t.full || better(Hit{Label: l, Score: s}, t.bar)
}

// push adds h, which admits passed.
func (t *topSet) push(h Hit) {
	t.hits = append(t.hits, h)
	if len(t.hits) >= 2*t.k {
		t.prune()
	}
}

// prune keeps the k best hits.
func (t *topSet) prune() {
	if len(t.hits) < t.k || t.k <= 0 {
		return
	}
	selectBest(t.hits, t.k)
	t.hits = t.hits[:t.k]
	t.bar = t.hits[0]
	for _, h := range t.hits[1:] {
		if better(t.bar, h) {
			t.bar = h
		}
	}
	t.full = true
}

// best returns the k best hits gathered (fewer when fewer were), in no
// particular order.
func (t *topSet) best() []Hit {
	t.prune()
	return t.hits
}

// selectBest reorders a so that a[:k] holds its k best hits (0 < k ≤
// len(a)): quickselect on the "better" order.
func selectBest(a []Hit, k int) {
	lo, hi := 0, len(a)-1
	for lo < hi {
		// Median of three as the pivot, moved to a[hi].
		mid := lo + (hi-lo)/2
		if better(a[mid], a[lo]) {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if better(a[hi], a[lo]) {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if better(a[mid], a[hi]) {
			a[mid], a[hi] = a[hi], a[mid]
		}
		pivot := a[hi]
		p := lo
		for i := lo; i < hi; i++ {
			if better(a[i], pivot) {
				a[i], a[p] = a[p], a[i]
				p++
			}
		}
		a[p], a[hi] = a[hi], a[p]
		// a[lo:p] beat the pivot, a[p] is it, a[p+1:hi+1] do not beat it.
		switch {
		case p == k-1 || p == k:
			return
		case p < k:
			lo = p + 1
		default:
			hi = p - 1
		}
	}
}
