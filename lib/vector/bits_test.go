package vector

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// bitFixture holds n random vectors of dim and their blocked codes.
type bitFixture struct {
	vecs  [][]float32
	nbits int
	codes []byte
	fac   []float32
	rows  [][]byte // row-major codes, as encode returned them
	a     []float32
}

func newBitFixture(r *rand.Rand, n, dim int) *bitFixture {
	enc := newBitEncoder(dim)
	f := &bitFixture{nbits: enc.nbits}
	nb := bitBlocks(n)
	f.codes = make([]byte, nb*bitBlockBytes(enc.nbits))
	f.fac = make([]float32, nb*bitFacPerBlock)
	for i := range n {
		v := unit(r, dim)
		code := make([]byte, enc.nbits/8)
		a := enc.encode(v, code)
		putBitRow(f.codes, f.fac, enc.nbits, i, code, a)
		f.vecs = append(f.vecs, v)
		f.rows = append(f.rows, code)
		f.a = append(f.a, a)
	}
	return f
}

// naiveEstimate computes row i's estimate from its row-major code and the
// query's 4-bit values directly (no tables, no blocks).
func naiveEstimate(f *bitFixture, i int, u []int8, bq *bitQuery) float32 {
	ip := 0
	for k := range f.nbits {
		if f.rows[i][k>>3]>>(k&7)&1 == 1 {
			ip += int(u[k])
		}
	}
	t := float32(float32(ip)*bq.par[0]) - bq.par[1]
	return f.a[i] * t
}

// queryLevels recomputes the query's 4-bit values from its tables.
func queryLevels(bq *bitQuery, nbits int) []int8 {
	u := make([]int8, nbits)
	for j := range nbits / 8 {
		for k := range 4 {
			u[8*j+k] = int8(bq.lut[lutOffset(j, 0)+1<<k] - lutBias)
			u[8*j+4+k] = int8(bq.lut[lutOffset(j, 1)+1<<k] - lutBias)
		}
	}
	return u
}

// TestScanBitsMatchesReference checks the portable scan against a direct
// computation (tables, block layout and row order) and the AVX2 kernel
// against the portable scan, bit for bit, including the masks.
func TestScanBitsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, dim := range []int{3, 64, 100, 512, 1536} {
		for _, n := range []int{1, 31, 32, 33, 200} {
			f := newBitFixture(r, n, dim)
			nb := bitBlocks(n)
			for qi := range 4 {
				q := unit(r, dim)
				if qi == 3 {
					q = f.vecs[n/2]
				}
				bq := newBitQuery(rotationFor(f.rot()), f.nbits, q)
				u := queryLevels(bq, f.nbits)
				for _, bar := range []float32{float32(math.Inf(-1)), 0, 0.1} {
					est := make([]float32, nb*bitBlock)
					masks := make([]uint32, nb)
					scanBitsGo(f.codes, f.fac, f.nbits, nb, bq, bar, est, masks)
					for i := range n {
						p := int(blockPos[i%bitBlock])
						got := est[i/bitBlock*bitBlock+p]
						if want := naiveEstimate(f, i, u, bq); math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("dim %d n %d row %d: portable estimate %v, direct %v", dim, n, i, got, want)
						}
						if on := masks[i/bitBlock]>>p&1 == 1; on != (got >= bar) {
							t.Fatalf("dim %d row %d: mask bit %v for estimate %v, bar %v", dim, i, on, got, bar)
						}
					}
					if !useAVX2 {
						continue
					}
					est2 := make([]float32, len(est))
					masks2 := make([]uint32, nb)
					scanBits(f.codes, f.fac, f.nbits, nb, bq, bar, est2, masks2)
					for i := range est {
						if math.Float32bits(est[i]) != math.Float32bits(est2[i]) {
							t.Fatalf("dim %d n %d position %d: kernel %v, portable %v", dim, n, i, est2[i], est[i])
						}
					}
					if !slices.Equal(masks, masks2) {
						t.Fatalf("dim %d n %d: kernel masks %x, portable %x", dim, n, masks2, masks)
					}
				}
			}
		}
	}
}

func (f *bitFixture) rot() int {
	dp, _ := bitDims(len(f.vecs[0]))
	return dp
}

func TestBitRowRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	f := newBitFixture(r, 70, 512)
	code := make([]byte, f.nbits/8)
	for i := range 70 {
		a := getBitRow(f.codes, f.fac, f.nbits, i, code)
		if !slices.Equal(code, f.rows[i]) || a != f.a[i] {
			t.Fatalf("row %d did not round-trip", i)
		}
	}
}

// TestRotationIsOrthogonal: the rotation keeps lengths and dot products.
func TestRotationIsOrthogonal(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, dim := range []int{10, 512, 1536} {
		dp, _ := bitDims(dim)
		rot := rotationFor(dp)
		a, b := unit(r, dim), unit(r, dim)
		x, y := make([]float32, dp), make([]float32, dp)
		rot.apply(a, x)
		rot.apply(b, y)
		if d := math.Abs(float64(dotF32(x, x)) - 1); d > 1e-4 {
			t.Errorf("dim %d: rotated length² %v", dim, dotF32(x, x))
		}
		if d := math.Abs(float64(dotF32(x, y) - dotF32(a, b))); d > 1e-4 {
			t.Errorf("dim %d: rotated dot %v, want %v", dim, dotF32(x, y), dotF32(a, b))
		}
	}
}

// TestBitEstimateRanksNeighbours: a query near one stored vector finds it
// among the best few estimates of 2,000 random ones, and the estimates
// track the true dot products.
func TestBitEstimateRanksNeighbours(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	const n, dim = 2000, 512
	f := newBitFixture(r, n, dim)
	nb := bitBlocks(n)
	est := make([]float32, nb*bitBlock)
	masks := make([]uint32, nb)
	var errSum float64
	for qi := range 20 {
		target := f.vecs[qi*97]
		q := make([]float32, dim)
		noise := unit(r, dim)
		for i := range q {
			q[i] = target[i] + 0.7*noise[i]
		}
		bq := newBitQuery(rotationFor(f.rot()), f.nbits, q)
		scanBits(f.codes, f.fac, f.nbits, nb, bq, 0, est, masks)
		at := func(i int) float32 { return est[i/bitBlock*bitBlock+int(blockPos[i%bitBlock])] }
		better := 0
		for i := range n {
			if at(i) > at(qi*97) {
				better++
			}
			errSum += math.Abs(float64(at(i) - dotF32(q, f.vecs[i])))
		}
		if better > 5 {
			t.Errorf("query %d: %d vectors estimated above its neighbour", qi, better)
		}
	}
	// RaBitQ's error is about ‖q‖·0.76/√nbits (0.04 here, ‖q‖ ≈ 1.22),
	// the size of random 512-d vectors' dot products.
	if mean := errSum / (20 * n); mean > 0.05 {
		t.Errorf("mean absolute estimate error %.4f", mean)
	}
}

// TestFWHTKernelMatchesPortable: a rotation round (sign flips and the
// transform) is bit for bit the same with the AVX2 kernel and the portable
// code (codes must not depend on the machine that wrote them), and the
// transform is the Walsh–Hadamard transform (H·H = n·I).
func TestFWHTKernelMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{16, 64, 512, 2048} {
		x := make([]float32, n)
		flip := make([]uint32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
			flip[i] = uint32(r.Intn(2)) << 31
		}
		x[3] = 0 // a zero flipped to -0
		flip[3] = 1 << 31
		orig := slices.Clone(x)
		y := slices.Clone(x)
		fwhtFlipped(x, flip)
		saved := useAVX2
		useAVX2 = false
		fwhtFlipped(y, flip)
		useAVX2 = saved
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				t.Fatalf("n %d: element %d is %v with the kernel, %v without", n, i, x[i], y[i])
			}
		}
		fwhtFlipped(x, make([]uint32, n)) // no flips: the transform alone
		for i := range x {
			want := orig[i]
			if flip[i] != 0 {
				want = -want
			}
			if d := math.Abs(float64(x[i]/float32(n) - want)); d > 1e-5 {
				t.Fatalf("n %d: H·H·x differs from n·x at %d by %v", n, i, d)
			}
		}
	}
}
