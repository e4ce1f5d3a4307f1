package vector

import (
	"runtime"
	"sync"

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

// Search returns the k live vectors with the highest dot product with q,
// best first, with exact float32 scores; equal scores are ordered by
// ascending label. Candidates are chosen by int8 codes and re-scored
// exactly (see rescoreCount); a vector outside the candidates is never
// returned, so the result equals the exact scan's unless quantization
// ranks a true top-k vector below rescoreCount(k) others.
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
	// Segments with a ready inverted file are probed; the others scanned,
	// in parts when large. scanned[si] is si, or -1-i for probed[i].
	var scanned []int
	var probed []*ivf
	total := 0
	for si, g := range s.segs {
		if s.useANN(g) {
			if x := g.invertedFile(); x != nil {
				scanned = append(scanned, -1-len(probed)) // probed[-1-v]
				probed = append(probed, x)
				continue
			}
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
	if parts := min(runtime.GOMAXPROCS(0), total/partMin, maxParts); parts > 1 && accept == nil {
		found := make([][]Hit, parts)
		var wg sync.WaitGroup
		for p := range parts {
			part := func() { found[p] = s.approx(scanned, qc, qs, c, p*total/parts, (p+1)*total/parts, nil) }
			if p == parts-1 {
				part()
			} else {
				wg.Go(part)
			}
		}
		wg.Wait()
		for _, hs := range found {
			merge(hs)
		}
	} else {
		merge(s.approx(scanned, qc, qs, c, 0, total, accept))
	}
	for si, v := range scanned {
		if v < 0 {
			s.approxIVF(&h, probed[-1-v], si, q, qc, qs, accept)
		}
	}
	cands := h.hits
	h = topK{hits: make([]Hit, 0, k), k: k}
	for _, x := range cands {
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

// scanBlock is the number of rows scored per kernel call.
const scanBlock = 512

// approx returns up to c candidates with the best approximate scores among
// rows [lo, hi) of the segments listed in scanned (rows numbered across
// them in order; negative entries are skipped). A candidate's Label is
// its position, segment<<32 | row.
func (s *Snapshot) approx(scanned []int, qc []int16, qs float32, c, lo, hi int, accept func(int64) bool) []Hit {
	h := newTopSet(c)
	var dots [scanBlock]int32
	base := 0
	for _, si := range scanned {
		if si < 0 {
			continue
		}
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
	return h.best()
}

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
