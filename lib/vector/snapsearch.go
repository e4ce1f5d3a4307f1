package vector

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/viterin/vek/vek32"
)

// Rescoring. A query scans the int8 codes of every live row for the
// max(k·RescoreFactor, k+RescoreMin) best approximate scores, then scores
// those candidates exactly from their float32 vectors and returns the
// best k. With per-vector int8 scales the exact top 10 of 512-d
// embeddings is inside the top 40 approximate candidates in all but
// rare ties (recall@10 ≥ 0.99 measured by BenchmarkRecall).
var (
	// RescoreFactor multiplies k for the candidates re-scored exactly.
	RescoreFactor = 4
	// RescoreMin is the least number of extra candidates beyond k.
	RescoreMin = 32
)

// rescoreCount returns how many candidates a top-k search re-scores.
func rescoreCount(k int) int { return max(k*RescoreFactor, k+RescoreMin) }

// The approximate path. A snapshot of at least ApproxMinVectors live
// vectors does not scan every int8 code: it scans the one-bit codes
// (bits.go; an eighth of the bytes) for the bitCount(k) best estimates,
// re-scores those by their int8 codes, and the approxRescoreCount(k) best
// of those exactly. Segments without one-bit codes (version 2) are
// scanned by their int8 codes as on the int8 path. Below the threshold
// every search takes the int8 path.
var (
	// ApproxMinVectors is the least live vectors for which a snapshot
	// takes the approximate path; 0 disables it.
	ApproxMinVectors = 4096
	// BitCandidatesMin is the least number of candidates the one-bit scan
	// passes on to the int8 codes.
	BitCandidatesMin = 1000
	// BitCandidateFactor multiplies k for that number.
	BitCandidateFactor = 4
	// ApproxRescoreDiv: the approximate path re-scores k + max(RescoreMin,
	// k/ApproxRescoreDiv) candidates exactly.
	ApproxRescoreDiv = 4
)

// bitCount returns how many candidates a top-k one-bit scan keeps.
func bitCount(k int) int { return max(BitCandidatesMin, BitCandidateFactor*k) }

// approxRescoreCount returns how many int8 candidates the approximate path
// re-scores exactly: their int8 scores are close to exact, and the
// candidates already passed the one-bit scan, so fewer than
// rescoreCount(k) suffice for large k.
func approxRescoreCount(k int) int { return k + max(RescoreMin, k/ApproxRescoreDiv) }

// approxMinBits is the least code length the approximate path uses: the
// codes of vectors of at most 256 dimensions (256 bits or fewer) always
// take the int8 path, their recall being unmeasured.
const approxMinBits = 512

// Approximate reports whether Search takes the approximate path (one-bit
// codes first) on this snapshot: it has at least ApproxMinVectors live
// vectors of more than 256 dimensions and segments with one-bit codes.
func (s *Snapshot) Approximate() bool {
	if s == nil || ApproxMinVectors <= 0 || s.live < ApproxMinVectors {
		return false
	}
	if _, nbits := bitDims(s.dim); nbits < approxMinBits {
		return false
	}
	for _, g := range s.segs {
		if g.nbits > 0 {
			return true
		}
	}
	return false
}

// Search returns the k live vectors with the highest dot product with q,
// best first, with exact float32 scores; equal scores are ordered by
// ascending label. Candidates are chosen by int8 codes and re-scored
// exactly (see rescoreCount); a vector outside the candidates is never
// returned, so the result equals the exact scan's unless quantization
// ranks a true top-k vector below rescoreCount(k) others. On the
// approximate path (Approximate) the int8 candidates are themselves
// chosen among bitCount(k) by one-bit codes, which may miss a true top-k
// vector more often (recall@10 against SearchExact measured at
// 0.989–1.000 on real queries; docs/performance.md).
//
// accept, when non-nil, filters candidates: a label is kept only if
// accept reports true; Search calls it at most once per label, on the
// calling goroutine, only for labels that would currently be candidates.
//
// A query of the wrong dimension or with non-finite elements is an
// INVALID_FIELD error. Searching a nil or empty snapshot returns no hits.
func (s *Snapshot) Search(q []float32, k int, accept func(label int64) bool) ([]Hit, error) {
	if s == nil || k <= 0 || s.live == 0 {
		return nil, nil
	}
	if err := checkVector(q, s.dim, s.model, "query"); err != nil {
		return nil, err
	}
	qc, qs := quantizeQuery(q)
	c := rescoreCount(k)
	approx := s.Approximate()
	if approx {
		c = min(c, approxRescoreCount(k))
	}
	// Segments with a ready inverted file are probed, those with one-bit
	// codes (approximate path) bit-scanned, the others int8-scanned, in
	// parts when large.
	var scanned, bitSegs, probedSegs []int
	var probed []*ivf
	total, blocks := 0, 0
	for si, g := range s.segs {
		if s.useANN(g) {
			if x := g.invertedFile(); x != nil {
				probedSegs, probed = append(probedSegs, si), append(probed, x)
				continue
			}
		}
		if approx && g.nbits > 0 {
			bitSegs = append(bitSegs, si)
			blocks += bitBlocks(g.rows())
			continue
		}
		scanned = append(scanned, si)
		total += g.rows()
	}
	h := topK{hits: make([]Hit, 0, c), k: c}
	merge := func(hs []Hit) {
		for _, x := range hs {
			if h.admits(x.Score, x.Label) {
				h.push(x)
			}
		}
	}
	// Pieces of partMin/4 rows: an int8 scan is shared from 2·partMin rows
	// (minPieces pieces), as the one-bit scan is from 2^17.
	merge(inParts(total, partMin/4, accept, func() topSet { return newTopSet(c) }, func(t *topSet, lo, hi int) {
		s.approx(t, scanned, qc, qs, lo, hi, accept)
	}))
	if len(bitSegs) > 0 {
		cands := s.bitStage(bitSegs, blocks, q, bitCount(k), accept)
		var dot [1]int32
		for i, x := range cands {
			if i+prefetchAhead < len(cands) {
				y := cands[i+prefetchAhead]
				g, r := s.segs[y.Label>>32], int(uint32(y.Label))
				prefetch(unsafe.Pointer(&g.codes[r*g.stride]), g.stride)
			}
			g := s.segs[x.Label>>32]
			r := int(uint32(x.Label))
			dotsI8(qc, g.codes[r*g.stride:(r+1)*g.stride], dot[:])
			if sc := float32(dot[0]) * qs * g.scales[r]; h.admits(sc, x.Label) {
				h.push(Hit{Label: x.Label, Score: sc})
			}
		}
	}
	for i, si := range probedSegs {
		s.approxIVF(&h, probed[i], si, q, qc, qs, accept)
	}
	cands := h.hits
	h = topK{hits: make([]Hit, 0, k), k: k}
	for i, x := range cands {
		if i+prefetchAhead < len(cands) {
			y := cands[i+prefetchAhead]
			g, r := s.segs[y.Label>>32], int(uint32(y.Label))
			prefetch(unsafe.Pointer(&g.vecs[r*g.dim]), min(4*g.dim, vecPrefetchBytes))
		}
		g := s.segs[x.Label>>32]
		r := int(uint32(x.Label))
		hit := Hit{Label: g.labels[r], Score: vek32.Dot(q, g.vec(r))}
		if h.admits(hit.Score, hit.Label) {
			h.push(hit)
		}
	}
	runtime.KeepAlive(s)
	return h.sorted(), nil
}

// SearchExact returns the k live vectors with the highest dot product
// with q by scoring every one exactly (float32), best first, ties by
// ascending label: the reference Search is measured against (it reads
// every vector, so it costs 4·dim bytes per row).
func (s *Snapshot) SearchExact(q []float32, k int) ([]Hit, error) {
	if s == nil || k <= 0 || s.live == 0 {
		return nil, nil
	}
	if err := checkVector(q, s.dim, s.model, "query"); err != nil {
		return nil, err
	}
	h := topK{hits: make([]Hit, 0, k), k: k}
	for si, g := range s.segs {
		for r, l := range g.labels {
			if isDead(s.dead[si], r) {
				continue
			}
			if sc := dotF32(q, g.vec(r)); h.admits(sc, l) {
				h.push(Hit{Label: l, Score: sc})
			}
		}
	}
	runtime.KeepAlive(s)
	return h.sorted(), nil
}

// bitPiece is the rows of the pieces a one-bit scan is claimed in.
var bitPiece = 1 << 14

// minPieces is the least pieces a scan must span to be shared with
// helpers: a smaller one costs less scanned on one core than a helper's
// wake-up and second candidate set.
const minPieces = 8

// inParts scans [0, n) and returns the union of the best hits each worker
// kept. The calling goroutine scans alone when n spans fewer than
// minPieces pieces of piece rows or accept is set (it must run on the
// calling goroutine); otherwise up to maxParts−1 helpers join it, every
// worker claiming the next piece until none is left and scanning into its
// own set from newSet. A helper that starts late, once a busy core frees
// up, finds fewer pieces or none: no piece waits for it.
func inParts(n, piece int, accept func(int64) bool, newSet func() topSet, scan func(t *topSet, lo, hi int)) []Hit {
	if n == 0 {
		return nil
	}
	piece = max(piece, 1)
	helpers := min(runtime.GOMAXPROCS(0), maxParts) - 1
	if helpers <= 0 || n < minPieces*piece || accept != nil {
		t := newSet()
		scan(&t, 0, n)
		return t.best()
	}
	var next atomic.Int64
	work := func() []Hit {
		var t topSet
		for {
			lo := int(next.Add(int64(piece))) - piece
			if lo >= n {
				break
			}
			if t.k == 0 {
				t = newSet()
			}
			scan(&t, lo, min(lo+piece, n))
		}
		return t.best()
	}
	found := make([][]Hit, helpers)
	var wg sync.WaitGroup
	for i := range found {
		wg.Go(func() { found[i] = work() })
	}
	all := work()
	wg.Wait()
	for _, hs := range found {
		all = append(all, hs...)
	}
	return all
}

// scanBlock is the number of rows scored per kernel call.
const scanBlock = 512

// approx adds to h the candidates with the best approximate scores among
// rows [lo, hi) of the segments listed in scanned (rows numbered across
// them in order). A candidate's Label is its position, segment<<32 | row.
func (s *Snapshot) approx(h *topSet, scanned []int, qc []int16, qs float32, lo, hi int, accept func(int64) bool) {
	var dots [scanBlock]int32
	base := 0
	for _, si := range scanned {
		g := s.segs[si]
		n := g.rows()
		a, b := max(lo-base, 0), min(hi-base, n)
		base += n
		dead := s.dead[si]
		for r0 := a; r0 < b; r0 += scanBlock {
			m := min(scanBlock, b-r0)
			dotsI8(qc, g.codes[r0*g.stride:(r0+m)*g.stride], dots[:m])
			for j, d := range dots[:m] {
				r := r0 + j
				sc := float32(d) * qs * g.scales[r]
				pos := int64(si)<<32 | int64(r)
				if !h.admits(sc, pos) || isDead(dead, r) {
					continue
				}
				if accept != nil && !accept(g.labels[r]) {
					continue
				}
				h.push(Hit{Label: pos, Score: sc})
			}
		}
	}
}

// prefetchAhead is how many candidates ahead re-scoring asks for a
// candidate's code or vector: they are scattered, so each would otherwise
// wait for memory.
const prefetchAhead = 4

// vecPrefetchBytes is how much of a candidate's float vector exact
// re-scoring asks for ahead: its head, from which the hardware streams
// the rest as the dot product reads on. Asking for all 2 KB of a 512-d
// vector four candidates ahead fills the core's miss buffers and stalls
// the prefetches themselves (a search of the Linux source's vectors took
// ~5% more CPU).
const vecPrefetchBytes = 256

// checkVector validates a vector's length and values for an index of
// dimension dim made by model.
func checkVector(v []float32, dim int, model, field string) error {
	if len(v) != dim {
		return errcode.FieldError(errcode.InvalidField, field,
			"%s has dimension %d, index (model %q) has %d", field, len(v), model, dim)
	}
	if i := nonFinite(v); i >= 0 {
		return errcode.FieldError(errcode.InvalidField, field, "%s element %d is %v", field, i, v[i])
	}
	return nil
}

// dotF32 is the exact float32 dot product.
func dotF32(a, b []float32) float32 { return vek32.Dot(a, b) }

// useANN reports whether segment g is searched through its inverted file.
func (s *Snapshot) useANN(g *segment) bool {
	return ANNMinVectors > 0 && s.live >= ANNMinVectors && g.rows() >= ivfMinRows
}

// approxIVF adds to h the best approximate candidates of segment si among
// the rows of the lists nearest to the query.
func (s *Snapshot) approxIVF(h *topK, x *ivf, si int, qf []float32, qc []int16, qs float32, accept func(int64) bool) {
	g, dead := s.segs[si], s.dead[si]
	var dot [1]int32
	for _, j := range x.probe(qf) {
		for _, r32 := range x.rows[x.offs[j]:x.offs[j+1]] {
			r := int(r32)
			if isDead(dead, r) {
				continue
			}
			dotsI8(qc, g.codes[r*g.stride:(r+1)*g.stride], dot[:])
			sc := float32(dot[0]) * qs * g.scales[r]
			pos := int64(si)<<32 | int64(r)
			if !h.admits(sc, pos) {
				continue
			}
			if accept != nil && !accept(g.labels[r]) {
				continue
			}
			h.push(Hit{Label: pos, Score: sc})
		}
	}
}
