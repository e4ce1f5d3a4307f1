package postings

import (
	"math/bits"
	"slices"
	"sync"
)

// Snapshot is one consistent, read-only version of the index: the
// segments one manifest lists, with the rows later segments shadow marked
// dead, and the BM25 statistics of its live rows. Segments are
// memory-mapped, so a snapshot costs little heap (dead-row bitmaps and a
// cache of term counts) and only the pages a query touches become
// resident. A Snapshot is safe for concurrent use and never changes; a nil
// *Snapshot is an empty index.
type Snapshot struct {
	segs    []*segment // oldest first
	dead    [][]uint64 // per segment: bit r set = row r is shadowed
	segLive []int64    // per segment: its live rows
	live    int64      // live rows
	tokens  int64      // their lengths summed
	// applied is the last store change the snapshot holds (see Manifest).
	applied int64
	storeID string

	dfMu sync.Mutex
	df   map[dfKey]int64
}

// dfKey identifies a cached document frequency.
type dfKey struct {
	cols ColumnSet
	term string
}

// Rows returns the number of live rows.
func (s *Snapshot) Rows() int64 {
	if s == nil {
		return 0
	}
	return s.live
}

// Segments returns the number of segment files the snapshot reads.
func (s *Snapshot) Segments() int {
	if s == nil {
		return 0
	}
	return len(s.segs)
}

// Applied returns the sequence number of the last store change the
// snapshot reflects (0 for none).
func (s *Snapshot) Applied() int64 {
	if s == nil {
		return 0
	}
	return s.applied
}

// isDead reports whether bit r is set.
func isDead(bits []uint64, r uint32) bool { return bits[r>>6]&(1<<(r&63)) != 0 }

// newSnapshot builds the snapshot of segs (oldest first), which m lists.
// Segments that prev also has as the same leading run keep prev's dead
// bits; each other segment marks the rows it shadows in every older one.
func newSnapshot(segs []*segment, prev *Snapshot, m *manifest) *Snapshot {
	s := &Snapshot{segs: segs, dead: make([][]uint64, len(segs)), segLive: make([]int64, len(segs)),
		applied: m.Applied, storeID: m.StoreID}
	keep := 0
	if prev != nil {
		for keep < len(segs) && keep < len(prev.segs) && segs[keep] == prev.segs[keep] {
			keep++
		}
	}
	for i, g := range segs {
		if i < keep {
			s.dead[i] = slices.Clone(prev.dead[i])
		} else {
			s.dead[i] = make([]uint64, (len(g.ids)+63)/64)
		}
	}
	// below[i] is the largest id of segs[:i]: chunk ids only grow, so
	// most ids of a newer segment are above it and shadow nothing.
	below := make([]int64, len(segs)+1)
	below[0] = -1 << 63
	for i, g := range segs {
		below[i+1] = below[i]
		if n := len(g.byID); n > 0 {
			below[i+1] = max(below[i+1], g.ids[g.byID[n-1]])
		}
	}
	for i := max(keep, 1); i < len(segs); i++ {
		for _, set := range [][]int64{segs[i].ids, segs[i].tombs} {
			for _, id := range set {
				if id > below[i] {
					continue
				}
				for j := i - 1; j >= 0; j-- {
					if r := segs[j].rowOf(id); r >= 0 {
						s.dead[j][r>>6] |= 1 << (r & 63)
						break // older copies are dead already
					}
				}
			}
		}
	}
	for i, g := range segs {
		s.tokens += int64(g.counts.tokens)
		n := int64(len(g.ids))
		for w, word := range s.dead[i] {
			if word == 0 {
				continue
			}
			n -= int64(bits.OnesCount64(word))
			for ; word != 0; word &= word - 1 {
				r := w*64 + bits.TrailingZeros64(word)
				s.tokens -= int64(g.lens[r])
			}
		}
		s.segLive[i] = n
		s.live += n
	}
	return s
}

// dropsSegments reports whether s maps segments next does not.
func (s *Snapshot) dropsSegments(next *Snapshot) bool {
	if s == nil {
		return false
	}
	for _, g := range s.segs {
		if next == nil || !slices.Contains(next.segs, g) {
			return true
		}
	}
	return false
}
