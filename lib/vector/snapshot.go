package vector

import (
	"cmp"
	"errors"
	"io/fs"
	"runtime"
	"slices"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// Snapshot is one consistent, read-only version of a vector index: the
// segments one manifest lists, with the rows later segments shadow marked
// dead. Segments are memory-mapped, so a snapshot costs little heap (the
// dead-row bitmaps) and only the pages a query touches become resident.
// A Snapshot is safe for concurrent use and never changes; the read-only
// methods also accept a nil *Snapshot, which behaves as an empty index.
type Snapshot struct {
	model string
	dim   int
	segs  []*segment // oldest first
	dead  [][]uint64 // per segment: bit r set = row r is shadowed
	live  int
}

// Model returns the embedder ID the vectors came from.
func (s *Snapshot) Model() string {
	if s == nil {
		return ""
	}
	return s.model
}

// Dim returns the vector length.
func (s *Snapshot) Dim() int {
	if s == nil {
		return 0
	}
	return s.dim
}

// Len returns the number of live vectors.
func (s *Snapshot) Len() int {
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

// replacedBy reports whether s maps segments that next does not.
func (s *Snapshot) replacedBy(next *Snapshot) bool {
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

// lookup returns the segment and row holding label's live vector.
func (s *Snapshot) lookup(l int64) (*segment, int, bool) {
	if s == nil {
		return nil, 0, false
	}
	for i := len(s.segs) - 1; i >= 0; i-- {
		g := s.segs[i]
		if r := g.find(l); r >= 0 {
			return g, r, true
		}
		if _, ok := slices.BinarySearch(g.tombs, l); ok {
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// Has reports whether label has a vector.
func (s *Snapshot) Has(label int64) bool {
	_, _, ok := s.lookup(label)
	return ok
}

// Vector returns a copy of label's vector, or false if it has none.
func (s *Snapshot) Vector(label int64) ([]float32, bool) {
	g, r, ok := s.lookup(label)
	if !ok {
		return nil, false
	}
	v := slices.Clone(g.vec(r))
	runtime.KeepAlive(s)
	return v, true
}

// Dot returns the exact float32 dot product of q with label's vector (the
// cosine when both are L2-normalised), or false if label has none or q's
// dimension differs.
func (s *Snapshot) Dot(label int64, q []float32) (float32, bool) {
	if s == nil || len(q) != s.dim {
		return 0, false
	}
	g, r, ok := s.lookup(label)
	if !ok {
		return 0, false
	}
	d := dotF32(q, g.vec(r))
	runtime.KeepAlive(s)
	return d, true
}

// Labels returns every live label, ascending.
func (s *Snapshot) Labels() []int64 {
	if s == nil {
		return nil
	}
	out := make([]int64, 0, s.live)
	for i, g := range s.segs {
		for r, l := range g.labels {
			if !isDead(s.dead[i], r) {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

func isDead(bits []uint64, r int) bool { return bits[r>>6]&(1<<(r&63)) != 0 }

// newSnapshot builds the snapshot of segs (oldest first). Segments that
// prev also has as the same leading run keep prev's dead bits; each other
// segment marks the rows it shadows in every older one, so adding a few
// small segments costs time proportional to their size.
func newSnapshot(model string, dim int, segs []*segment, prev *Snapshot) *Snapshot {
	s := &Snapshot{model: model, dim: dim, segs: segs, dead: make([][]uint64, len(segs))}
	keep := 0
	if prev != nil && prev.model == model && prev.dim == dim {
		for keep < len(segs) && keep < len(prev.segs) && segs[keep] == prev.segs[keep] {
			keep++
		}
	}
	for i, g := range segs {
		if i < keep {
			s.dead[i] = slices.Clone(prev.dead[i])
		} else {
			s.dead[i] = make([]uint64, (g.rows()+63)/64)
		}
	}
	for i := max(keep, 1); i < len(segs); i++ {
		for _, set := range [][]int64{segs[i].labels, segs[i].tombs} {
			for _, l := range set {
				for j := i - 1; j >= 0; j-- {
					if r := segs[j].find(l); r >= 0 {
						s.dead[j][r>>6] |= 1 << (r & 63)
						break // older copies are dead already
					}
				}
			}
		}
	}
	for i, g := range segs {
		n := g.rows()
		for _, w := range s.dead[i] {
			n -= popcount(w)
		}
		s.live += n
	}
	return s
}

func popcount(w uint64) int {
	n := 0
	for ; w != 0; w &= w - 1 {
		n++
	}
	return n
}

// errSegmentGone reports that a listed segment vanished: a compaction
// replaced the manifest after it was read. Reading the manifest again
// settles it.
var errSegmentGone = errors.New("segment replaced while opening")

// openSegments opens the segments m lists, reusing those of prev (same
// number, rows and size; numbers are never reused within an index, see
// freshSeq).
func openSegments(path string, m *manifest, prev *Snapshot, full bool) ([]*segment, error) {
	have := map[uint64]*segment{}
	if prev != nil && prev.dim == m.dim {
		for _, g := range prev.segs {
			have[g.seq] = g
		}
	}
	segs := make([]*segment, 0, len(m.segs))
	for _, e := range m.segs {
		if g := have[e.seq]; g != nil && uint64(g.rows()) == e.rows && g.size == e.size {
			segs = append(segs, g)
			continue
		}
		g, err := openSegment(segPath(path, e.seq), e.seq, m.dim, full)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errSegmentGone
		}
		if err != nil {
			return nil, &segError{seq: e.seq, err: err}
		}
		if uint64(g.rows()) != e.rows || g.size != e.size {
			g.release()
			return nil, &segError{seq: e.seq, err: errors.New("segment does not match its manifest entry")}
		}
		segs = append(segs, g)
	}
	return segs, nil
}

// segError is a listed segment that cannot be used (torn or corrupt).
type segError struct {
	seq uint64
	err error
}

func (e *segError) Error() string {
	return "segment " + segName(e.seq) + ": " + e.err.Error()
}

func (e *segError) Unwrap() error { return e.err }

// memSegment builds a heap segment of the given rows, sorted by label,
// with int8 and one-bit codes computed, and the tombstones (sorted here).
// With copyVecs it copies the float vectors too; without, the segment's
// vecs are nil (it can be written, with the vectors from the caller, but
// not searched) and order maps its rows to the caller's: row r is the
// caller's row order[r].
func memSegment(dim int, labels []int64, vec func(i int) []float32, tombs []int64, copyVecs bool) (g *segment, order []int) {
	n := len(labels)
	order = make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(labels[a], labels[b]) })
	enc := newBitEncoder(dim)
	nb := bitBlocks(n)
	g = &segment{dim: dim, stride: codeStride(dim), labels: make([]int64, n), scales: make([]float32, n),
		codes: make([]int8, n*codeStride(dim)),
		nbits: enc.nbits, bits: make([]byte, nb*bitBlockBytes(enc.nbits)), bitf: make([]float32, nb*bitFacPerBlock)}
	if copyVecs {
		g.vecs = make([]float32, n*dim)
	}
	code := make([]byte, enc.nbits/8)
	for r, i := range order {
		g.labels[r] = labels[i]
		v := vec(i)
		if copyVecs {
			copy(g.vecs[r*dim:], v)
		}
		g.scales[r] = quantize(v, g.codes[r*g.stride:(r+1)*g.stride])
		putBitRow(g.bits, g.bitf, g.nbits, r, code, enc.encode(v, code))
	}
	g.tombs = slices.Clone(tombs)
	slices.Sort(g.tombs)
	g.tombs = slices.Compact(g.tombs)
	g.size = layoutOf(dim, n, len(g.tombs), g.nbits).end
	return g, order
}

// row returns row i in the form writeSegment takes.
func (g *segment) row(i int) (int64, float32, []int8, []float32) {
	return g.labels[i], g.scales[i], g.codes[i*g.stride : (i+1)*g.stride], g.vec(i)
}

// bitsOf returns g's one-bit codes in the form writeSegment takes.
func (g *segment) bitsOf() segBits {
	var enc *bitEncoder
	if g.nbits == 0 {
		enc = newBitEncoder(g.dim)
	}
	return func(i int, code []byte) float32 { return g.bitRow(i, code, enc) }
}

// snapshotOfIndex converts a format-1 in-memory index to a one-segment
// snapshot held in the heap.
func snapshotOfIndex(ix *Index) *Snapshot {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	d := ix.dim
	g, _ := memSegment(d, ix.labels, func(i int) []float32 { return ix.vecs[i*d : (i+1)*d] }, nil, true)
	return newSnapshot(ix.model, d, []*segment{g}, nil)
}

// Open returns a snapshot of the index at path: a format-2 manifest and
// its segments (mapped, meta checksums verified), or a format-1 file
// loaded whole. Errors are as for Load.
func Open(path string) (*Snapshot, error) {
	s, _, err := openSnapshot(path, nil)
	return s, err
}

// openSnapshot reads the manifest (or a format-1 file) at path and opens
// the snapshot it describes, reusing prev's segments. A segment removed by
// a concurrent compaction makes it read the manifest again.
func openSnapshot(path string, prev *Snapshot) (*Snapshot, mmapfile.FileID, error) {
	for try := 0; ; try++ {
		m, legacy, id, err := readIndexFile(path)
		if err != nil {
			return nil, id, err
		}
		if legacy != nil {
			return snapshotOfIndex(legacy), id, nil
		}
		segs, err := openSegments(path, m, prev, false)
		if errors.Is(err, errSegmentGone) && try < 3 {
			continue
		}
		if err != nil {
			if !errors.Is(err, errSegmentGone) {
				err = corrupt(path, err)
			}
			return nil, id, err
		}
		return newSnapshot(m.model, m.dim, segs, prev), id, nil
	}
}
