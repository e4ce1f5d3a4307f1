package postings

import (
	"bytes"
	"slices"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// Compaction. Each flush adds a segment; mergePlan keeps their number
// logarithmic in the index size and drops dead rows: segments are grouped
// in levels by size (a factor of mergeFanout apart) and the newest
// mergeFanout segments are merged into one when they share a level, so a
// row is rewritten about log_mergeFanout(N/flush size) times. When a
// quarter of all rows are dead (deleted or replaced), or more than
// maxSegments pile up, everything is merged into one segment.
const (
	mergeFanout = 8
	maxSegments = 40
	levelBase   = 1024
	// evictEvery is how many postings a merge reads between dropping the
	// sources' resident pages.
	evictEvery = 1 << 20
)

// mergePlan returns i such that snap.segs[i:] should be merged into one,
// or -1 for none.
func mergePlan(snap *Snapshot) int {
	segs := snap.segs
	n := len(segs)
	var total int64
	for _, g := range segs {
		total += int64(len(g.ids))
	}
	if n > 1 && (4*(total-snap.live) > total || n > maxSegments) {
		return 0
	}
	if n == 1 && total > 0 && 4*(total-snap.live) > total {
		return 0
	}
	if n < mergeFanout {
		return -1
	}
	lv := level(len(segs[n-mergeFanout].ids))
	for _, g := range segs[n-mergeFanout:] {
		if level(len(g.ids)) != lv {
			return -1
		}
	}
	return n - mergeFanout
}

// level is the size class of a segment of n rows.
func level(n int) int {
	l := 0
	for n >= levelBase*mergeFanout {
		n /= mergeFanout
		l++
	}
	return l
}

// mergeSource is the live content of snap.segs[from:] as one segment
// source: rows segment by segment (dead ones dropped), so each segment's
// rows map to an ascending range and postings concatenate in order.
type mergeSource struct {
	snap  *Snapshot
	from  int
	remap [][]uint32 // per merged segment: old row → new row (^0: dead)
	ids   []int64
	lens  []uint32
	kinds []uint8
	names []string
	tombs []int64
	rows  []uint32
	f     []freqs
	term  []byte
}

func newMergeSource(snap *Snapshot, from int) *mergeSource {
	m := &mergeSource{snap: snap, from: from}
	nameIx := map[string]uint8{}
	for si := from; si < len(snap.segs); si++ {
		g := snap.segs[si]
		kmap := make([]uint8, len(g.names))
		for k, name := range g.names {
			ix, ok := nameIx[name]
			if !ok {
				ix = uint8(len(m.names))
				nameIx[name] = ix
				m.names = append(m.names, name)
			}
			kmap[k] = ix
		}
		remap := make([]uint32, len(g.ids))
		dead := snap.dead[si]
		for r := range g.ids {
			if isDead(dead, uint32(r)) {
				remap[r] = ^uint32(0)
				continue
			}
			remap[r] = uint32(len(m.ids))
			m.ids = append(m.ids, g.ids[r])
			m.lens = append(m.lens, g.lens[r])
			m.kinds = append(m.kinds, kmap[g.kinds[r]])
		}
		m.remap = append(m.remap, remap)
		if from > 0 {
			m.tombs = append(m.tombs, g.tombs...)
		}
	}
	slices.Sort(m.tombs)
	m.tombs = slices.Compact(m.tombs)
	return m
}

func (m *mergeSource) rowData() ([]int64, []uint32, []uint8, []string) {
	return m.ids, m.lens, m.kinds, m.names
}

func (m *mergeSource) tombstones() []int64 { return m.tombs }

// eachTerm merges the segments' dictionaries in byte order.
func (m *mergeSource) eachTerm(fn func(term []byte, rows []uint32, f []freqs) error) error {
	segs := m.snap.segs[m.from:]
	pos := make([]int, len(segs))
	read := 0 // postings read since the sources' pages were last dropped
	defer func() {
		for _, g := range segs {
			mmapfile.Evict(g.data)
		}
	}()
	for {
		if read >= evictEvery {
			// The pass reads every page of the sources once: keep them
			// out of the resident set (they stay in the page cache).
			for _, g := range segs {
				mmapfile.Evict(g.data)
			}
			read = 0
		}
		// The smallest current term among the segments.
		var min []byte
		for i, g := range segs {
			if pos[i] >= len(g.termN) {
				continue
			}
			t, _ := g.term(pos[i])
			if min == nil || bytes.Compare(t, min) < 0 {
				min = t
			}
		}
		if min == nil {
			return nil
		}
		m.term = append(m.term[:0], min...)
		term := m.term
		m.rows, m.f = m.rows[:0], m.f[:0]
		for i, g := range segs {
			if pos[i] >= len(g.termN) {
				continue
			}
			if t, _ := g.term(pos[i]); !bytes.Equal(t, term) {
				continue
			}
			ti := pos[i]
			pos[i]++
			rows, packed, ok := g.block(ti)
			if !ok {
				return errCorrupt
			}
			remap := m.remap[i]
			read += len(rows)
			for j, r := range rows {
				if int(r) >= len(remap) {
					return errCorrupt
				}
				if nr := remap[r]; nr != ^uint32(0) {
					m.rows = append(m.rows, nr)
					m.f = append(m.f, g.freqsAt(ti, j, packed[j]))
				}
			}
		}
		if len(m.rows) == 0 {
			continue
		}
		if err := fn(term, m.rows, m.f); err != nil {
			return err
		}
	}
}
