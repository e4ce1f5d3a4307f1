package vector

import (
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The one-bit stage of the approximate path: a sampled bar, then a scan of
// the one-bit codes (bits.go) in pieces for the best bitCount(k) estimates,
// which Search re-scores by their int8 codes and then exactly.

// bitChunk is the number of code blocks scored per kernel call.
const bitChunk = 16

// bitSample is the least number of code blocks bitBar samples.
const bitSample = 32

// bitBarRank is the least rank in bitBar's sample of the estimate it
// returns: the sample grows with the segments until the bar is the
// sample's bitBarRank-th estimate or lower.
const bitBarRank = 48

// bitBar returns a bar that about 2·c rows of the segments segs (blocks
// code blocks) estimate above, from the estimates of sample blocks spread
// over them, so a scan keeps few rows it then drops; or -Inf when the
// segments are too small for that to pay. A scan with the bar that finds
// fewer than c rows above it must be repeated without it.
func (s *Snapshot) bitBar(segs []int, bq *bitQuery, c, blocks int) float32 {
	if blocks*bitBlock < 16*c {
		return float32(math.Inf(-1))
	}
	ns, ok := barSampleBlocks(blocks, c)
	if !ok {
		return float32(math.Inf(-1))
	}
	var est [bitBlock]float32
	var mask [1]uint32
	buf := samplePool.Get().(*[]float32)
	defer samplePool.Put(buf)
	sample := (*buf)[:0]
	// at returns sample block i: its segment and its block there.
	at := func(i int) (*segment, int) {
		b := i * blocks / ns
		for _, si := range segs {
			g := s.segs[si]
			if nb := bitBlocks(g.rows()); b >= nb {
				b -= nb
				continue
			}
			return g, b
		}
		return nil, 0
	}
	// The blocks lie far apart: each is asked for barDistance blocks
	// before it is scanned, and found once (ahead holds the ones asked
	// for and not yet scanned).
	type place struct {
		g *segment
		b int
	}
	var ahead [barDistance + 1]place
	for i := -barDistance; i < ns; i++ {
		if j := i + barDistance; j < ns {
			g, b := at(j)
			ahead[j%len(ahead)] = place{g, b}
			if g != nil {
				bb := bitBlockBytes(g.nbits)
				prefetch(unsafe.Pointer(&g.bits[b*bb]), bb)
			}
		}
		if i < 0 {
			continue
		}
		next := ahead[i%len(ahead)]
		g, b := next.g, next.b
		if g == nil {
			continue
		}
		bb := bitBlockBytes(g.nbits)
		scanBits(g.bits[b*bb:(b+1)*bb], g.bitf[b*bitFacPerBlock:(b+1)*bitFacPerBlock], g.nbits, 1, bq, 0, est[:], mask[:])
		for p, e := range est {
			if b*bitBlock+int(blockRow[p]) < g.rows() {
				sample = append(sample, e)
			}
		}
	}
	*buf = sample
	// At most len(sample)/8: the rows number at least 16c.
	return nthLargest(sample, 2*c*len(sample)/(blocks*bitBlock))
}

// barDistance is how many sample blocks ahead bitBar asks for (with 4,
// 105 against 120-135 µs per bar on the Linux source's code vectors).
const barDistance = 4

// samplePool holds bitBar's sample buffers (up to ~50 KB on large
// indexes), reused across searches.
var samplePool = sync.Pool{New: func() any { return new([]float32) }}

// bitBarMisses counts the one-bit scans repeated without their bar.
var bitBarMisses atomic.Int64

// barSampleBlocks returns how many of blocks code blocks bitBar samples
// for a bar at rank 2c, and false when that many would cost more than the
// bar saves (over an eighth of the blocks, which also rules out fewer than
// 8·bitSample blocks). Rank m of the sample estimates the rows' rank 2c;
// fewer than c rows above it needs an error of half, which m ≥ bitBarRank
// makes rare (over 3 standard deviations). A fixed sample of 32 blocks
// gave m ≈ 4 on the Linux source's 490k codes, and one search in twelve
// scanned its codes twice.
func barSampleBlocks(blocks, c int) (int, bool) {
	ns := max(bitSample, (bitBarRank*blocks+2*c-1)/(2*c))
	return ns, ns <= blocks/8
}

// nthLargest returns the element a would have at index m (0-based) if
// sorted in descending order, reordering a.
func nthLargest(a []float32, m int) float32 {
	if m < len(a)/64 { // measured: BenchmarkNthLargest
		return nthLargestHeap(a, m)
	}
	return nthLargestSelect(a, m)
}

// nthLargestSelect is nthLargest by quickselect.
func nthLargestSelect(a []float32, m int) float32 {
	lo, hi := 0, len(a)-1
	for lo < hi {
		p := a[lo+(hi-lo)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] > p {
				i++
			}
			for a[j] < p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case m <= j:
			hi = j
		case m >= i:
			lo = i
		default:
			return a[m]
		}
	}
	return a[m]
}

// nthLargestHeap is nthLargest for a small m: a[:m+1] becomes a min-heap
// of the m+1 largest elements, which most elements of a sample (in no
// particular order) are compared with once. Quickselect's partitions
// mispredict a branch on every other element: on bitBar's sample of the
// Linux source (11.7k estimates, m = 47) 171 µs against 19 µs.
func nthLargestHeap(a []float32, m int) float32 {
	h := a[:m+1]
	for i := m / 2; i >= 0; i-- {
		siftDown(h, i)
	}
	for _, x := range a[m+1:] {
		if x > h[0] {
			h[0] = x
			siftDown(h, 0)
		}
	}
	return h[0]
}

// siftDown moves h[i] down the min-heap h to its place.
func siftDown(h []float32, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r] < h[l] {
			l = r
		}
		if h[i] <= h[l] {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

// bitStage returns the c rows of the segments segs (blocks code blocks)
// with the best one-bit estimates for q, labelled by position as in
// approx, scanning in parts when large.
func (s *Snapshot) bitStage(segs []int, blocks int, q []float32, c int, accept func(int64) bool) []Hit {
	dp, nbits := bitDims(s.dim)
	bq := newBitQuery(rotationFor(dp), nbits, q)
	scan := func(bar float32) []Hit {
		hits := inParts(blocks, bitPiece/bitBlock, accept, func() topSet { return newTopSetAbove(c, bar) }, func(t *topSet, lo, hi int) {
			s.bitCandidates(t, segs, bq, lo, hi, accept)
		})
		if len(hits) > c { // several workers: keep the best c of their union
			selectBest(hits, c)
			hits = hits[:c]
		}
		return hits
	}
	if accept != nil { // one scan: a second would call accept again
		return scan(float32(math.Inf(-1)))
	}
	bar := s.bitBar(segs, bq, c, blocks)
	hits := scan(bar)
	if len(hits) < c && bar > float32(math.Inf(-1)) {
		bitBarMisses.Add(1)
		hits = scan(float32(math.Inf(-1))) // the sampled bar was too high
	}
	return hits
}

// bitCandidates adds to h the candidates with the best one-bit estimates
// among code blocks [lo, hi) of the segments listed in segs (blocks
// numbered across them in order), labelled by position as in approx.
func (s *Snapshot) bitCandidates(h *topSet, segs []int, bq *bitQuery, lo, hi int, accept func(int64) bool) {
	var est [bitChunk * bitBlock]float32
	var masks [bitChunk]uint32
	base := 0
	for _, si := range segs {
		g := s.segs[si]
		n := g.rows()
		nb := bitBlocks(n)
		a, b := max(lo-base, 0), min(hi-base, nb)
		base += nb
		dead := s.dead[si]
		bb := bitBlockBytes(g.nbits)
		for b0 := a; b0 < b; b0 += bitChunk {
			m := min(bitChunk, b-b0)
			bar := float32(math.Inf(-1))
			if h.full {
				bar = h.bar.Score
			}
			scanBits(g.bits[b0*bb:(b0+m)*bb], g.bitf[b0*bitFacPerBlock:(b0+m)*bitFacPerBlock], g.nbits, m, bq, bar, est[:], masks[:])
			for i, mk := range masks[:m] {
				for mk != 0 {
					p := bits.TrailingZeros32(mk)
					mk &= mk - 1
					r := (b0+i)*bitBlock + int(blockRow[p])
					if r >= n {
						continue
					}
					sc := est[i*bitBlock+p]
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
}
