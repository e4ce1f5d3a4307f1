package vector

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// embeddingLike returns n unit vectors of dim shaped like text embeddings:
// a shared mean direction, 40 topics the vectors mix (a few each, with
// decaying weights), and noise, so neighbours are close but not clustered
// tightly; and queries made the same way from fewer topics (short texts),
// which sit farther from their neighbours than stored vectors do.
func embeddingLike(r *rand.Rand, n, queries, dim int) (vecs, qs [][]float32) {
	mean := unit(r, dim)
	topics := make([][]float32, 40)
	for i := range topics {
		topics[i] = unit(r, dim)
	}
	mix := func(parts int, noise float64) []float32 {
		v := make([]float32, dim)
		for j := range v {
			v[j] = 0.5*mean[j] + float32(noise*r.NormFloat64()/math.Sqrt(float64(dim)))
		}
		for p := range parts {
			t, w := topics[r.Intn(len(topics))], float32(1/float64(p+1))
			for j := range v {
				v[j] += w * t[j]
			}
		}
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		inv := float32(1 / math.Sqrt(s))
		for j := range v {
			v[j] *= inv
		}
		return v
	}
	for range n {
		vecs = append(vecs, mix(1+r.Intn(4), 0.9))
	}
	for range queries {
		qs = append(qs, mix(1+r.Intn(2), 1.4))
	}
	return vecs, qs
}

// approxFixture is a flushed index of embedding-like vectors above the
// approximate path's threshold, and its model.
func approxFixture(t *testing.T, n, dim, flushEvery int) (*Writer, model, [][]float32) {
	t.Helper()
	w, _ := newWriter(t, dim)
	r := rand.New(rand.NewSource(31))
	vecs, qs := embeddingLike(r, n, 100, dim)
	m := model{}
	for i, v := range vecs {
		l := int64(5000 + 3*i)
		must(t, w.Upsert(l, v))
		m[l] = v
		if (i+1)%flushEvery == 0 {
			must(t, w.Flush())
		}
	}
	must(t, w.Flush())
	return w, m, qs
}

// Above the threshold, Search takes the approximate path: every returned
// score is the exact dot product, hits are ordered by score then label,
// and the top 10 holds ≥ 98% of the exact scan's top-10 hits (the recall
// gate), on vectors shaped like embeddings; also with only 200 one-bit
// candidates (a fifth of the default), so the gate tests the estimator,
// not just a wide candidate list.
func TestApproximateSearchRecall(t *testing.T) {
	const n, dim = 12000, 512
	w, m, qs := approxFixture(t, n, dim, 5000)
	s := w.snap
	if !s.Approximate() {
		t.Fatalf("snapshot of %d vectors does not take the approximate path (threshold %d)", s.Len(), ApproxMinVectors)
	}
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		want[i] = exactTop(m, q, 10)
	}
	recall := func() float64 {
		hit, all := 0, 0
		for i, q := range qs {
			got, err := s.Search(q, 10, nil)
			must(t, err)
			for _, h := range want[i] {
				all++
				if slices.Contains(got, h) {
					hit++
				}
			}
		}
		return float64(hit) / float64(all)
	}
	if r := recall(); r < 0.98 {
		t.Errorf("recall@10 %.4f against the exact scan, want ≥ 0.98", r)
	}
	defer func(v int) { BitCandidatesMin = v }(BitCandidatesMin)
	BitCandidatesMin = 200
	if r := recall(); r < 0.98 {
		t.Errorf("with 200 candidates: recall@10 %.4f, want ≥ 0.98", r)
	}
	BitCandidatesMin = 1000
	for _, q := range qs[:20] {
		got, err := s.Search(q, 150, nil)
		must(t, err)
		if len(got) != 150 {
			t.Fatalf("k=150: %d hits", len(got))
		}
		for i, h := range got {
			if h.Score != dotF32(q, m[h.Label]) {
				t.Fatalf("hit %d: score %v, exact %v", h.Label, h.Score, dotF32(q, m[h.Label]))
			}
			if i > 0 && better(h, got[i-1]) {
				t.Fatalf("hits out of order at %d: %v after %v", i, h, got[i-1])
			}
		}
	}
}

// Below the threshold (and with it disabled) Search is today's int8 path,
// whose top 10 is the exact one here; the approximate path is off for
// vectors of 256 dimensions or fewer.
func TestApproximatePathThreshold(t *testing.T) {
	w, m, qs := approxFixture(t, 3000, 512, 3000)
	if w.snap.Approximate() {
		t.Fatalf("%d vectors (threshold %d) take the approximate path", w.snap.Len(), ApproxMinVectors)
	}
	for _, q := range qs[:20] {
		got, err := w.snap.Search(q, 10, nil)
		must(t, err)
		if want := exactTop(m, q, 10); !slices.Equal(got, want) {
			t.Fatalf("below the threshold: %v, exact %v", got, want)
		}
	}
	defer func(v int) { ApproxMinVectors = v }(ApproxMinVectors)
	ApproxMinVectors = 1
	if !w.snap.Approximate() {
		t.Error("threshold 1: not approximate")
	}
	ApproxMinVectors = 0
	if w.snap.Approximate() {
		t.Error("threshold 0 (disabled): approximate")
	}
	ApproxMinVectors = 1
	small, _ := newWriter(t, 256)
	r := rand.New(rand.NewSource(3))
	for l := range int64(100) {
		must(t, small.Upsert(l, unit(r, 256)))
	}
	must(t, small.Flush())
	if small.snap.Approximate() {
		t.Error("256-d vectors take the approximate path")
	}
}

// On the approximate path deleted and overwritten vectors are never
// returned, accept sees each label at most once and filters, and a scan
// in parts returns what one part does.
func TestApproximateSearchDeadRowsFilterParts(t *testing.T) {
	const dim = 384
	w, m, qs := approxFixture(t, 9000, dim, 2000)
	r := rand.New(rand.NewSource(32))
	// Overwrite and delete some of the best hits of the first queries.
	for _, q := range qs[:10] {
		best, err := w.snap.Search(q, 3, nil)
		must(t, err)
		w.Delete(best[0].Label)
		delete(m, best[0].Label)
		v := unit(r, dim)
		must(t, w.Upsert(best[1].Label, v))
		m[best[1].Label] = v
	}
	must(t, w.Flush())
	s := w.snap
	if !s.Approximate() {
		t.Fatal("not approximate")
	}
	defer func(v int) { bitPiece = v }(bitPiece)
	for _, q := range qs {
		bitPiece = 1 << 30
		one, err := s.Search(q, 20, nil)
		must(t, err)
		for _, h := range one {
			v, ok := m[h.Label]
			if !ok || h.Score != dotF32(q, v) {
				t.Fatalf("hit %d: deleted (%v) or stale score %v", h.Label, !ok, h.Score)
			}
		}
		bitPiece = 128 // many pieces, claimed by the caller and its helpers
		parts, err := s.Search(q, 20, nil)
		must(t, err)
		if !slices.Equal(one, parts) {
			t.Fatalf("in parts %v, in one %v", parts, one)
		}
		seen := map[int64]bool{}
		odd, err := s.Search(q, 20, func(l int64) bool {
			if seen[l] {
				t.Fatalf("accept called twice for %d", l)
			}
			seen[l] = true
			return l%2 == 1
		})
		must(t, err)
		for _, h := range odd {
			if h.Label%2 == 0 {
				t.Fatalf("filtered label %d returned", h.Label)
			}
		}
		if len(odd) != 20 {
			t.Fatalf("filtered search returned %d hits", len(odd))
		}
	}
}

// downgrade rewrites the index at path as an earlier build wrote it:
// version-2 segments, without one-bit codes.
func downgrade(t *testing.T, path string) {
	t.Helper()
	m, _, _, err := readIndexFile(path)
	must(t, err)
	le := binary.LittleEndian
	for i, e := range m.segs {
		b, err := os.ReadFile(segPath(path, e.seq))
		must(t, err)
		n, tn := int(le.Uint64(b[16:])), int(le.Uint64(b[24:]))
		_, nbits := bitDims(m.dim)
		from, to := layoutOf(m.dim, n, tn, nbits), layoutOf(m.dim, n, tn, 0)
		out := make([]byte, to.end)
		copy(out, b[:to.vecs]) // header, labels, tombstones, scales, codes
		copy(out[to.vecs:], b[from.vecs:])
		le.PutUint32(out[8:], 2)
		le.PutUint32(out[40:], 0)
		le.PutUint32(out[32:], crc32.Checksum(out[to.labels:to.vecs], castagnoli))
		le.PutUint32(out[44:], crc32.Checksum(out[:44], castagnoli))
		must(t, os.WriteFile(segPath(path, e.seq), out, 0o600))
		m.segs[i].size = to.end
	}
	must(t, writeManifest(path, m))
}

// Segments of an earlier build (version 2, no one-bit codes) still load
// and search (by their int8 codes, exactly as before, whatever the
// threshold); the next Flush of a Writer rewrites them with one-bit codes
// and the same vectors, after which the approximate path is used.
func TestVersion2SegmentsLoadAndUpgrade(t *testing.T) {
	w, m, qs := approxFixture(t, 6000, 512, 2500)
	path := w.path
	w.Close()
	downgrade(t, path)
	defer func(v int) { ApproxMinVectors = v }(ApproxMinVectors)
	ApproxMinVectors = 1
	s, err := Open(path)
	must(t, err)
	if s.Approximate() || s.Segments() < 2 {
		t.Fatalf("version-2 snapshot: approximate %v, %d segments", s.Approximate(), s.Segments())
	}
	checkSnapshot(t, s, m)
	ApproxMinVectors = 0
	var int8Path [][]Hit
	for _, q := range qs[:20] {
		want, _ := s.Search(q, 10, nil)
		int8Path = append(int8Path, want)
	}
	ApproxMinVectors = 1
	for i, q := range qs[:20] {
		got, err := s.Search(q, 10, nil)
		must(t, err)
		if !slices.Equal(got, int8Path[i]) {
			t.Fatalf("version-2 segments, threshold 1: %v, int8 path %v", got, int8Path[i])
		}
	}
	w2, err := OpenWriter(path)
	must(t, err)
	defer w2.Close()
	if len(w2.Dropped()) > 0 || !w2.Dirty() {
		t.Fatalf("reopened: dropped %v, dirty %v", w2.Dropped(), w2.Dirty())
	}
	must(t, w2.Flush())
	if w2.Dirty() {
		t.Error("still dirty after the upgrade")
	}
	up, err := Open(path)
	must(t, err)
	for _, g := range up.segs {
		if g.nbits == 0 {
			t.Fatalf("segment %d has no one-bit codes after Flush", g.seq)
		}
	}
	checkSnapshot(t, up, m)
	if !up.Approximate() {
		t.Error("upgraded snapshot does not take the approximate path")
	}
	// The codes equal those of an index written from scratch.
	fresh, _, _ := approxFixture(t, 6000, 512, 6000)
	code, want := make([]byte, 64), make([]byte, 64)
	for l := range m {
		g, r, _ := up.lookup(l)
		fg, fr, _ := fresh.snap.lookup(l)
		if a, b := getBitRow(g.bits, g.bitf, g.nbits, r, code), getBitRow(fg.bits, fg.bitf, fg.nbits, fr, want); a != b || !slices.Equal(code, want) {
			t.Fatalf("label %d: upgraded code differs from a fresh one", l)
		}
	}
}

// A flipped bit in the one-bit codes or their factors makes the segment
// corrupt for readers (STORE_CORRUPT) and dropped by a Writer, like any
// other meta section.
func TestBitSectionCorruptionDetected(t *testing.T) {
	for _, section := range []string{"bits", "bitf"} {
		w, _, _ := approxFixture(t, 500, 512, 500)
		path := w.path
		seq := w.man.segs[0].seq
		w.Close()
		seg := segPath(path, seq)
		b, err := os.ReadFile(seg)
		must(t, err)
		_, nbits := bitDims(512)
		lay := layoutOf(512, 500, 0, nbits)
		off := lay.bits + 77
		if section == "bitf" {
			off = lay.bitf + 5
		}
		b[off] ^= 0x10
		must(t, os.WriteFile(seg, b, 0o600))
		if _, err := Open(path); errcode.Of(err) != errcode.StoreCorrupt {
			t.Errorf("%s: Open: %v, want STORE_CORRUPT", section, err)
		}
		w2, err := OpenWriter(path)
		must(t, err)
		if len(w2.Dropped()) != 1 {
			t.Errorf("%s: writer dropped %v, want the segment", section, w2.Dropped())
		}
		w2.Close()
	}
}

// A version-3 header whose code length is not this build's is refused.
func TestBitLengthMismatchRefused(t *testing.T) {
	w, _, _ := approxFixture(t, 100, 512, 100)
	path, seq := w.path, w.man.segs[0].seq
	w.Close()
	b, err := os.ReadFile(segPath(path, seq))
	must(t, err)
	binary.LittleEndian.PutUint32(b[40:], 256)
	binary.LittleEndian.PutUint32(b[44:], crc32.Checksum(b[:44], castagnoli))
	if _, err := parseSegment(b, 512, false); err == nil {
		t.Error("a segment of 256-bit codes for 512 dimensions parsed")
	}
}

// SearchExact is the exact scan: the exact top k of the live vectors.
func TestSearchExact(t *testing.T) {
	w, _ := newWriter(t, 48)
	r := rand.New(rand.NewSource(40))
	m := churn(t, w, r, 6, 400, 100, 3000)
	for range 20 {
		q := unit(r, 48)
		got, err := w.snap.SearchExact(q, 15)
		must(t, err)
		if want := exactTop(m, q, 15); !slices.Equal(got, want) {
			t.Fatalf("SearchExact %v, want %v", got, want)
		}
	}
	if _, err := w.snap.SearchExact(make([]float32, 3), 1); errcode.Of(err) != errcode.InvalidField {
		t.Errorf("wrong dimension: %v", err)
	}
}

// Concurrent searches return exactly what the same searches return one
// at a time.
func TestApproximateSearchConcurrent(t *testing.T) {
	w, _, qs := approxFixture(t, 6000, 512, 6000)
	s := w.snap
	if !s.Approximate() {
		t.Fatal("not approximate")
	}
	want := make([][]Hit, len(qs))
	for i, q := range qs {
		var err error
		want[i], err = s.Search(q, 30, nil)
		must(t, err)
	}
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Go(func() {
			for i := g; i < len(qs); i += 3 {
				got, err := s.Search(qs[i], 30, nil)
				if err != nil || !slices.Equal(got, want[i]) {
					t.Errorf("query %d concurrently: %v %v, alone %v", i, err, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// The one-bit scan's sampled bar only skips rows that cannot be among the
// candidates: with it the candidates are those of a scan without it. Its
// sample grows with the codes, so that a scan is almost never repeated for
// want of candidates above it: here 1250 code blocks and 200 candidates, a
// ratio like the Linux source's (15k blocks, 1000 candidates), where a
// sample of 32 blocks had the bar repeated in one search of twelve.
func TestBitBarKeepsCandidatesAndRarelyMisses(t *testing.T) {
	for _, tc := range []struct{ blocks, c int }{{15318, 1000}, {1591, 1000}, {1250, 200}} {
		ns, ok := barSampleBlocks(tc.blocks, tc.c)
		if m := 2 * tc.c * ns / tc.blocks; !ok || m < bitBarRank {
			t.Errorf("%d blocks, %d candidates: sample of %d blocks (ok %v), rank %d < %d", tc.blocks, tc.c, ns, ok, m, bitBarRank)
		}
	}
	const n, dim, c = 40000, 320, 200
	w, _, qs := approxFixture(t, n, dim, n)
	s := w.snap
	var segs []int
	blocks := 0
	for si, g := range s.segs {
		if g.nbits > 0 {
			segs = append(segs, si)
			blocks += bitBlocks(g.rows())
		}
	}
	if blocks*bitBlock < 16*c || len(segs) == 0 {
		t.Fatalf("fixture too small for a bar: %d blocks", blocks)
	}
	dp, nbits := bitDims(s.dim)
	misses0 := bitBarMisses.Load()
	for _, q := range qs {
		got := s.bitStage(segs, blocks, q, c, nil)
		bq := newBitQuery(rotationFor(dp), nbits, q)
		all := newTopSet(c)
		s.bitCandidates(&all, segs, bq, 0, blocks, nil)
		want := all.best()
		if len(got) != c || len(want) != c {
			t.Fatalf("%d candidates with the bar, %d without, want %d", len(got), len(want), c)
		}
		key := func(hs []Hit) []int64 {
			out := make([]int64, len(hs))
			for i, h := range hs {
				out[i] = h.Label
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(key(got), key(want)) {
			t.Fatal("the bar changed the one-bit candidates")
		}
	}
	if m := bitBarMisses.Load() - misses0; m > 2 {
		t.Errorf("the sampled bar was too high for %d of %d queries (scan repeated)", m, len(qs))
	}
}
