package postings

// Searching one segment: each query unit is resolved to the segment's
// terms, the driving group's postings give the candidate rows, and the
// candidates are scored a window at a time, every unit's frequencies
// gathered by walking or seeking its postings; segDocFreq counts a unit's
// live rows for the BM25 statistics.

import (
	"math"
	"slices"
	"sync"
)

// segUnit is a unit resolved in one segment: the term index of each
// token (none when a token is absent, so the unit matches no row there).
type segUnit struct {
	terms  []int
	rarest int // index into terms of the token with the fewest postings
	cur    []int
}

// windowRows is how many candidate rows are scored together.
const windowRows = 4096

// work is a search's scratch memory, reused through a pool.
type work struct {
	su      []segUnit
	cands   []uint32
	heads   []int
	present []uint64   // per window row: bit u set = unit u matched
	fr      []freqs    // window row × unit
	f       []float64  // per unit: weighted frequency in the current row
	slot    []int32    // per segment row: its window index, -1 outside the window
	grpMask []uint64   // per group: its units
	lists   [][]uint32 // candidate lists being merged
}

var workPool = sync.Pool{New: func() any { return &work{} }}

func getWork(units int) *work {
	w := workPool.Get().(*work)
	if cap(w.fr) < windowRows*units {
		w.fr = make([]freqs, windowRows*units)
	}
	w.fr = w.fr[:windowRows*units]
	if w.present == nil {
		w.present = make([]uint64, windowRows)
	}
	if cap(w.f) < units {
		w.f = make([]float64, units)
	}
	w.f = w.f[:units]
	return w
}

// putWork returns w to the pool after a search that completed: one that
// panicked (a damaged segment) may have left w.slot marked, so its w is
// dropped.
func putWork(w *work) { workPool.Put(w) }

// slots returns w's row-to-window map for a segment of n rows, every
// entry -1.
func (w *work) slots(n int) []int32 {
	if len(w.slot) < n {
		w.slot = make([]int32, n)
		for i := range w.slot {
			w.slot[i] = -1
		}
	}
	return w.slot[:n]
}

// searchSegment adds segment si's matching rows to top.
func (s *Snapshot) searchSegment(si int, g *segment, q *Query, cols ColumnSet, units []unit, phraseUnit []int, groupUnits [][]int,
	avgdl float64, w *work, top *topHits) {
	nu := len(units)
	if cap(w.su) < nu {
		w.su = make([]segUnit, nu)
	}
	su := w.su[:nu]
	for u := range units {
		x := &su[u]
		x.terms, x.rarest = x.terms[:0], 0
		for _, tok := range units[u].tokens {
			t := g.find([]byte(tok))
			if t < 0 {
				x.terms = x.terms[:0]
				break
			}
			x.terms = append(x.terms, t)
			if g.termN[t] < g.termN[x.terms[x.rarest]] {
				x.rarest = len(x.terms) - 1
			}
		}
		if cap(x.cur) < len(x.terms) {
			x.cur = make([]int, len(x.terms))
		}
		x.cur = x.cur[:len(x.terms)]
		clear(x.cur)
	}
	// The group with the fewest postings drives; the others only filter.
	driver, best := -1, uint64(math.MaxUint64)
	for gi, gu := range groupUnits {
		var sum uint64
		for _, u := range gu {
			if x := &su[u]; len(x.terms) > 0 {
				sum += uint64(g.termN[x.terms[x.rarest]])
			}
		}
		if sum == 0 {
			return // a group with no term in this segment: no row matches
		}
		if sum < best {
			driver, best = gi, sum
		}
	}
	var kindOK [256]bool
	for k, name := range g.names {
		kindOK[k] = len(q.Kinds) == 0 || slices.Contains(q.Kinds, name)
	}
	dead := s.dead[si]
	nRows := uint32(len(g.ids))
	// Candidates: the union of the driver's postings, live and of an
	// allowed kind.
	w.lists = w.lists[:0]
	for _, u := range groupUnits[driver] {
		if x := &su[u]; len(x.terms) > 0 {
			rows, _, _ := g.block(x.terms[x.rarest])
			w.lists = append(w.lists, rows)
		}
	}
	w.cands = unionRows(w.cands[:0], w.lists, &w.heads)
	cands := w.cands[:0]
	for _, r := range w.cands {
		if r < nRows && !isDead(dead, r) && kindOK[g.kinds[r]] {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return
	}
	w.grpMask = w.grpMask[:0]
	for _, gu := range groupUnits {
		var m uint64
		for _, u := range gu {
			m |= 1 << u
		}
		w.grpMask = append(w.grpMask, m)
	}
	// Integer weights make FTS5's repeated additions a product, exactly.
	intWeights := true
	for _, wt := range q.Weights {
		if wt != math.Trunc(wt) || math.Abs(wt) > 1<<20 {
			intWeights = false
		}
	}
	slot := w.slots(len(g.ids))
	for start := 0; start < len(cands); start += windowRows {
		win := cands[start:min(start+windowRows, len(cands))]
		present := w.present[:len(win)]
		clear(present)
		for i, r := range win {
			slot[r] = int32(i)
		}
		for u := range su {
			x := &su[u]
			switch {
			case len(x.terms) == 1:
				collectTerm(g, x, u, nu, cols, win, slot, present, w.fr)
			case len(x.terms) > 1:
				collectPhrase(g, x, u, nu, cols, win, present, w.fr)
			}
		}
		for _, r := range win {
			slot[r] = -1
		}
		for i, r := range win {
			p := present[i]
			ok := true
			for _, m := range w.grpMask {
				if p&m == 0 {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			for u := range su {
				w.f[u] = 0
				if p&(1<<u) == 0 {
					continue
				}
				fr := &w.fr[i*nu+u]
				var f float64
				for c := range numCols {
					if !cols.Has(c) {
						continue
					}
					if intWeights {
						f += q.Weights[c] * float64(fr[c])
					} else {
						for range fr[c] {
							f += q.Weights[c]
						}
					}
				}
				w.f[u] = f
			}
			// fts5Bm25Function, operation for operation, except that a unit
			// the row lacks is skipped: FTS5 adds its +0.0, which leaves
			// the sum as it is.
			d := float64(g.lens[r])
			norm := k1 * (1 - bParam + bParam*d/avgdl)
			score := 0.0
			for _, u := range phraseUnit {
				if f := w.f[u]; f != 0 {
					score += units[u].idf * ((f * (k1 + 1.0)) / (f + norm))
				}
			}
			if top.admits(score) { // most rows are not: their id is never read
				top.push(Hit{ID: g.ids[r], Score: score})
			}
		}
	}
}

// collectTerm records, for each window row holding the one-token unit u
// within cols, its frequencies, and sets its bit in present. It walks
// the term's postings up to the window's last row (marking through slot)
// when they are few, else seeks each window row; the unit's cursor only
// moves forward, across windows.
func collectTerm(g *segment, x *segUnit, u, nu int, cols ColumnSet, win []uint32, slot []int32, present []uint64, fr []freqs) {
	t := x.terms[0]
	rows, packed, _ := g.block(t)
	j := x.cur[0]
	last := win[len(win)-1]
	end := seek(rows, j, last+1)
	record := func(i, j int) {
		if f, in := within(g.freqsAt(t, j, packed[j]), cols); in {
			present[i] |= 1 << u
			fr[i*nu+u] = f
		}
	}
	if end-j <= 8*len(win) {
		for ; j < end; j++ {
			if r := rows[j]; int(r) < len(slot) {
				if i := slot[r]; i >= 0 {
					record(int(i), j)
				}
			}
		}
	} else {
		for i, r := range win {
			j = seek(rows, j, r)
			if j < len(rows) && rows[j] == r {
				record(i, j)
			}
		}
		j = end
	}
	x.cur[0] = j
}

// collectPhrase is collectTerm for a unit of several tokens: a row holds
// it when it holds every token, with each column's frequency the least of
// the tokens'.
func collectPhrase(g *segment, x *segUnit, u, nu int, cols ColumnSet, win []uint32, present []uint64, fr []freqs) {
	for i, r := range win {
		var f freqs
		all := true
		for k, t := range x.terms {
			rows, packed, _ := g.block(t)
			j := seek(rows, x.cur[k], r)
			x.cur[k] = j
			if j == len(rows) || rows[j] != r {
				all = false
				break
			}
			tf := g.freqsAt(t, j, packed[j])
			if k == 0 {
				f = tf
			} else {
				for c := range numCols {
					f[c] = min(f[c], tf[c])
				}
			}
		}
		if !all {
			continue
		}
		if f, in := within(f, cols); in {
			present[i] |= 1 << u
			fr[i*nu+u] = f
		}
	}
}

// within returns f with the columns outside cols zeroed, and whether any
// count is left.
func within(f freqs, cols ColumnSet) (freqs, bool) {
	in := false
	for c := range numCols {
		if !cols.Has(c) {
			f[c] = 0
		} else if f[c] > 0 {
			in = true
		}
	}
	return f, in
}

// seek returns the first index ≥ from of rows whose value is ≥ r
// (galloping, then binary search).
func seek(rows []uint32, from int, r uint32) int {
	if from >= len(rows) || rows[from] >= r {
		return from
	}
	step := 1
	lo := from
	hi := from + step
	for hi < len(rows) && rows[hi] < r {
		lo = hi
		step *= 2
		hi = from + step
	}
	hi = min(hi, len(rows))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if rows[mid] < r {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// unionRows appends to dst the distinct rows of the ascending lists, in
// ascending order.
func unionRows(dst []uint32, lists [][]uint32, heads *[]int) []uint32 {
	switch len(lists) {
	case 0:
		return dst
	case 1:
		return append(dst, lists[0]...)
	}
	h := (*heads)[:0]
	for range lists {
		h = append(h, 0)
	}
	*heads = h
	for {
		next, any := uint32(math.MaxUint32), false
		for i, l := range lists {
			if h[i] < len(l) && l[h[i]] <= next {
				next, any = l[h[i]], true
			}
		}
		if !any {
			return dst
		}
		dst = append(dst, next)
		for i, l := range lists {
			if h[i] < len(l) && l[h[i]] == next {
				h[i]++
			}
		}
	}
}

// segDocFreq counts segment si's live rows holding tokens within cols.
func (s *Snapshot) segDocFreq(si int, g *segment, tokens []string, cols ColumnSet) int64 {
	terms := make([]int, 0, len(tokens))
	for _, tok := range tokens {
		t := g.find([]byte(tok))
		if t < 0 {
			return 0
		}
		terms = append(terms, t)
	}
	if len(terms) == 1 && cols == AllColumns && s.segLive[si] == int64(len(g.ids)) {
		return int64(g.termN[terms[0]]) // no dead row
	}
	dead := s.dead[si]
	rows, packed, _ := g.block(terms[0])
	cur := make([]int, len(terms))
	var n int64
	nRows := uint32(len(g.ids))
	for j, r := range rows {
		if r >= nRows || isDead(dead, r) {
			continue
		}
		f := g.freqsAt(terms[0], j, packed[j])
		all := true
		for k := 1; k < len(terms); k++ {
			rk, pk, _ := g.block(terms[k])
			i := seek(rk, cur[k], r)
			cur[k] = i
			if i == len(rk) || rk[i] != r {
				all = false
				break
			}
			tf := g.freqsAt(terms[k], i, pk[i])
			for c := range numCols {
				f[c] = min(f[c], tf[c])
			}
		}
		if !all {
			continue
		}
		if _, in := within(f, cols); in {
			n++
		}
	}
	return n
}
