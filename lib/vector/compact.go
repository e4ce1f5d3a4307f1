package vector

import (
	"cmp"
	"slices"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// Compaction. Each Flush adds a segment; mergePlan keeps their number
// logarithmic in the index size and drops dead rows: segments are grouped
// in levels by size (a factor of mergeFanout apart) and the newest
// mergeFanout segments are merged into one when they share a level, so
// a vector is rewritten about log_mergeFanout(N/flush size) times. When a
// quarter of all rows are dead (deleted or overwritten), or more than
// maxSegments pile up, everything is merged into one segment.
const (
	// evictEvery is how many rows a merge copies between dropping the
	// source segments' resident pages.
	evictEvery  = 8192
	mergeFanout = 8
	maxSegments = 40
	levelBase   = 1024
)

// mergePlan returns i such that the segments snap.segs[i:] should be merged
// into one, or -1 for none.
func mergePlan(snap *Snapshot) int {
	segs := snap.segs
	n := len(segs)
	total := 0
	for _, g := range segs {
		total += g.rows()
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
	lv := level(segs[n-mergeFanout].rows())
	for _, g := range segs[n-mergeFanout:] {
		if level(g.rows()) != lv {
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

// merge writes the rows of snap.segs[i:j] that no later segment of the
// range shadows (and, unless i is 0, the tombstones they carry for older
// segments) as one new segment, with codes and vectors copied (one-bit
// codes computed for rows of version-2 segments), and returns it open. Rows
// that segments after j shadow stay shadowed. It allocates 16 bytes per row.
func (w *Writer) merge(snap *Snapshot, i, j int, man *manifest) (*segment, error) {
	type ent struct {
		label int64
		seg   int32
		row   int32 // -1: tombstone
	}
	var ents []ent
	for si := i; si < j; si++ {
		g := snap.segs[si]
		for r, l := range g.labels {
			ents = append(ents, ent{l, int32(si), int32(r)})
		}
		for _, l := range g.tombs {
			ents = append(ents, ent{l, int32(si), -1})
		}
	}
	// Newest first per label, then keep the first.
	slices.SortFunc(ents, func(a, b ent) int {
		if c := cmp.Compare(a.label, b.label); c != 0 {
			return c
		}
		return cmp.Compare(b.seg, a.seg)
	})
	ents = slices.CompactFunc(ents, func(a, b ent) bool { return a.label == b.label })
	var rows []ent
	var tombs []int64
	for _, e := range ents {
		switch {
		case e.row >= 0:
			rows = append(rows, e)
		case i > 0:
			tombs = append(tombs, e.label)
		}
	}
	seq := man.nextSeq
	path := segPath(w.path, seq)
	row := func(k int) (int64, float32, []int8, []float32) {
		if k%evictEvery == 0 {
			for _, g := range snap.segs[i:j] {
				mmapfile.Evict(g.data) // keep the resident set small
			}
		}
		e := rows[k]
		return snap.segs[e.seg].row(int(e.row))
	}
	enc := newBitEncoder(man.dim) // for rows of version-2 segments
	bits := func(k int, code []byte) float32 {
		e := rows[k]
		return snap.segs[e.seg].bitRow(int(e.row), code, enc)
	}
	if err := writeSegment(path, man.dim, len(rows), tombs, row, bits); err != nil {
		return nil, err
	}
	g, err := openWritten(path, seq, man.dim)
	if err != nil {
		return nil, err
	}
	man.nextSeq++
	return g, nil
}
