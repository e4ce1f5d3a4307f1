package vector

import (
	"math"
	"sync"
)

// One-bit codes (segment version 3). Every stored vector v also has a code
// of nbits sign bits: v is zero-padded to dp dimensions (a power of two),
// rotated by a fixed random orthogonal transform R (three rounds of random
// sign flips and a Walsh–Hadamard transform), and bit i is set when
// (Rv)_i > 0, for i < nbits (bitDims). With x = Rv, a query q, y = Rq and
// s_i = ±1 the signs,
//
//	q·v ≈ a · Σ s_i·y_i,   a = ‖v‖² / Σ|x_i|      (sums over i < nbits)
//
// (the estimator of RaBitQ, Gao & Long, SIGMOD 2024; exact when q = v).
// The query side is quantized to 4 bits per coordinate, y_i ≈ Δ·u_i with
// u_i in [-7, 7], so with ip = Σ u_i over the set bits (an integer) and
// U = Σ u_i,
//
//	q·v ≈ a · Δ · (2·ip − U)
//
// and a segment stores a per row. ip is summed 4 bits at a time from
// 16-entry tables (one per nibble of the code) with byte shuffles, 32 rows
// at once (scanBits): the codes are stored in blocks of bitBlock rows,
// byte j of the 32 rows together (see bitBlockBytes), and the factors in
// the order the kernel produces its sums (blockRow). A row costs nbits/8
// + 4 bytes (68 at 512 dimensions, against 516 for its int8 code).
//
// The estimate only chooses candidates: Snapshot.Search re-scores them by
// their int8 codes, then the best by their float vectors (snapsearch.go).
// The rotation is part of the format: its seed and construction must not
// change for segment version 3.

// bitBlock is the number of rows a code block holds.
const bitBlock = 32

// bitFacPerBlock is the number of float32 factors a block stores.
const bitFacPerBlock = bitBlock

// maxCodeBits caps the code length: 1024 bits (128 bytes per vector).
const maxCodeBits = 1024

// bitDims returns the rotation's dimension dp for vectors of length dim
// and the number of code bits, a multiple of 64.
func bitDims(dim int) (dp, nbits int) {
	dp = 64
	for dp < dim {
		dp *= 2
	}
	return dp, min(dp, maxCodeBits)
}

// bitBlockBytes is the size of one code block of nbits-bit codes.
func bitBlockBytes(nbits int) int { return nbits / 8 * bitBlock }

// bitBlocks returns the number of blocks holding n rows.
func bitBlocks(n int) int { return (n + bitBlock - 1) / bitBlock }

// blockRow maps a position p in a block's sums, factors, estimates and
// mask bits to the row within the block: the kernel sums even and odd
// rows in separate 16-bit lanes, so positions 0-7 are rows 0, 2, …, 14,
// 8-15 rows 16, …, 30, 16-23 rows 1, …, 15 and 24-31 rows 17, …, 31.
var blockRow = func() (t [bitBlock]uint8) {
	for p := range t {
		g, i := p>>3, p&7
		t[p] = uint8(2*i + (g&1)*16 + g>>1)
	}
	return t
}()

// blockPos is the inverse of blockRow.
var blockPos = func() (t [bitBlock]uint8) {
	for p, r := range blockRow {
		t[r] = uint8(p)
	}
	return t
}()

// rotation is the fixed random orthogonal transform of dp dimensions.
type rotation struct {
	dp    int
	flip  [3][]uint32 // per round: sign bit to xor into each coordinate
	scale float32     // dp^-1.5: three unnormalised transforms
}

var rotations sync.Map // dp → *rotation

// rotationFor returns the rotation of dp dimensions (a power of two ≥ 64).
func rotationFor(dp int) *rotation {
	if r, ok := rotations.Load(dp); ok {
		return r.(*rotation)
	}
	r := &rotation{dp: dp, scale: float32(math.Pow(float64(dp), -1.5))}
	// splitmix64 from a fixed seed: the signs are part of the format.
	st := uint64(0x9E3779B97F4A7C15) ^ uint64(dp)
	next := func() uint64 {
		st += 0x9E3779B97F4A7C15
		z := st
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		return z ^ z>>31
	}
	for k := range r.flip {
		r.flip[k] = make([]uint32, dp)
		for i := 0; i < dp; i += 64 {
			w := next()
			for j := range 64 {
				r.flip[k][i+j] = uint32(w>>j&1) << 31
			}
		}
	}
	got, _ := rotations.LoadOrStore(dp, r)
	return got.(*rotation)
}

// apply sets x (len dp) to the rotation of v (len ≤ dp, zero-padded).
func (r *rotation) apply(v, x []float32) {
	r.applyUnscaled(v, x)
	for i := range x[:r.dp] {
		x[i] *= r.scale
	}
}

// applyUnscaled sets x to the rotation of v times dp^1.5 (r.scale's
// inverse): the signs and the ratios of the rotation, for less work.
func (r *rotation) applyUnscaled(v, x []float32) {
	x = x[:r.dp]
	copy(x, v)
	clear(x[len(v):])
	for k := range r.flip {
		fwhtFlipped(x, r.flip[k][:len(x)])
	}
}

// fwhtFlipped flips the signs of x where flip has the sign bit, then
// applies fwht.
func fwhtFlipped(x []float32, flip []uint32) {
	n := len(x)
	flip = flip[:n]
	if useAVX2 && n >= 16 {
		fwhtRoundAVX2(&x[0], &flip[0], n)
		return
	}
	for i := 0; i+8 <= n; i += 8 {
		v := (*[8]float32)(x[i : i+8])
		f := (*[8]uint32)(flip[i : i+8])
		v0 := math.Float32frombits(math.Float32bits(v[0]) ^ f[0])
		v1 := math.Float32frombits(math.Float32bits(v[1]) ^ f[1])
		v2 := math.Float32frombits(math.Float32bits(v[2]) ^ f[2])
		v3 := math.Float32frombits(math.Float32bits(v[3]) ^ f[3])
		v4 := math.Float32frombits(math.Float32bits(v[4]) ^ f[4])
		v5 := math.Float32frombits(math.Float32bits(v[5]) ^ f[5])
		v6 := math.Float32frombits(math.Float32bits(v[6]) ^ f[6])
		v7 := math.Float32frombits(math.Float32bits(v[7]) ^ f[7])
		fwht8(v, v0, v1, v2, v3, v4, v5, v6, v7)
	}
	fwhtStages(x, 8)
}

// fwht8 stores in v the transform of the 8 values: the first three
// stages of the Walsh–Hadamard transform.
func fwht8(v *[8]float32, v0, v1, v2, v3, v4, v5, v6, v7 float32) {
	a0, a1 := v0+v1, v0-v1
	a2, a3 := v2+v3, v2-v3
	a4, a5 := v4+v5, v4-v5
	a6, a7 := v6+v7, v6-v7
	b0, b2 := a0+a2, a0-a2
	b1, b3 := a1+a3, a1-a3
	b4, b6 := a4+a6, a4-a6
	b5, b7 := a5+a7, a5-a7
	v[0], v[4] = b0+b4, b0-b4
	v[1], v[5] = b1+b5, b1-b5
	v[2], v[6] = b2+b6, b2-b6
	v[3], v[7] = b3+b7, b3-b7
}

// fwhtStages applies the butterflies of the stages of span h, 2h, …, to x.
func fwhtStages(x []float32, h int) {
	n := len(x)
	for ; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			a, b := x[i:i+h], x[i+h:i+2*h]
			b = b[:len(a)]
			for j := 0; j+4 <= len(a); j += 4 {
				a0, a1, a2, a3 := a[j], a[j+1], a[j+2], a[j+3]
				b0, b1, b2, b3 := b[j], b[j+1], b[j+2], b[j+3]
				a[j], a[j+1], a[j+2], a[j+3] = a0+b0, a1+b1, a2+b2, a3+b3
				b[j], b[j+1], b[j+2], b[j+3] = a0-b0, a1-b1, a2-b2, a3-b3
			}
		}
	}
}

// bitEncoder computes the one-bit codes of vectors of one dimension.
type bitEncoder struct {
	rot   *rotation
	nbits int
	x     []float32
}

func newBitEncoder(dim int) *bitEncoder {
	dp, nb := bitDims(dim)
	return &bitEncoder{rot: rotationFor(dp), nbits: nb, x: make([]float32, dp)}
}

// encode writes v's code (nbits/8 bytes, bit i&7 of byte i>>3 for
// coordinate i) into code and returns its factor.
func (e *bitEncoder) encode(v []float32, code []byte) float32 {
	e.rot.applyUnscaled(v, e.x) // x = Rv/scale: the same signs
	var l1 [4]float32
	for j := range e.nbits / 8 {
		x := (*[8]float32)(e.x[8*j : 8*j+8])
		var c uint32
		for t, f := range x {
			b := math.Float32bits(f)
			// Bit t is set when f > 0: sign clear and not ±0.
			c |= (b>>31 ^ 1) & ((b | -b) >> 31) << t
			l1[t&3] += math.Float32frombits(b &^ (1 << 31))
		}
		code[j] = byte(c)
	}
	sum := float64(l1[0]) + float64(l1[1]) + float64(l1[2]) + float64(l1[3])
	if sum == 0 {
		return 0
	}
	// a = ‖v‖² / Σ|(Rv)_i|, and (Rv)_i = scale·x_i.
	return float32(float64(dotF32(v, v)) / (sum * float64(e.rot.scale)))
}

// putBitRow stores row r's code and factor in blocked code and factor
// arrays (see bitBlockBytes, blockRow).
func putBitRow(blocks []byte, fac []float32, nbits, r int, code []byte, a float32) {
	bb := bitBlockBytes(nbits)
	blk, i := r/bitBlock, r%bitBlock
	base := blocks[blk*bb : (blk+1)*bb]
	for j, c := range code[:nbits/8] {
		base[j*bitBlock+i] = c
	}
	fac[blk*bitFacPerBlock+int(blockPos[i])] = a
}

// getBitRow reads row r's code into code and returns its factor.
func getBitRow(blocks []byte, fac []float32, nbits, r int, code []byte) float32 {
	bb := bitBlockBytes(nbits)
	blk, i := r/bitBlock, r%bitBlock
	base := blocks[blk*bb : (blk+1)*bb]
	for j := range code[:nbits/8] {
		code[j] = base[j*bitBlock+i]
	}
	return fac[blk*bitFacPerBlock+int(blockPos[i])]
}

// bitQuery is a query prepared for scanBits.
type bitQuery struct {
	// lut holds, per pair of code bytes j, j+1 (128 bytes), the 16-entry
	// tables of the low nibbles of byte j and of byte j+1, then of their
	// high nibbles, each twice (32 bytes, one per 128-bit lane): entry n
	// is lutBias plus the sum of u_i over the set bits of n (|sum| ≤ 28).
	lut []byte
	// par is {2Δ, Δ·U}.
	par [2]float32
}

// newBitQuery rotates and quantizes q for codes of nbits bits made by rot.
func newBitQuery(rot *rotation, nbits int, q []float32) *bitQuery {
	y := make([]float32, rot.dp)
	rot.apply(q, y)
	y = y[:nbits]
	var m float32
	for _, f := range y {
		m = max(m, f, -f)
	}
	delta := m / 7
	u := make([]int8, nbits)
	sum := 0
	if delta > 0 {
		inv := 1 / delta
		for i, f := range y {
			// Round to nearest, clamped (the product may round past 7).
			v := int(math.Floor(float64(f*inv) + 0.5))
			u[i] = int8(min(max(v, -7), 7))
			sum += int(u[i])
		}
	}
	bq := &bitQuery{lut: make([]byte, nbits/8*64)}
	bq.par = [2]float32{2 * delta, delta * float32(sum)}
	for j := range nbits / 8 {
		for half := range 2 {
			t := bq.lut[lutOffset(j, half):][:32]
			w := u[8*j+4*half:][:4]
			// Entry n adds n's highest bit's value to entry n&^8, etc.;
			// |sums| ≤ 28 fit an int8.
			t[1], t[2], t[4], t[8] = byte(w[0]), byte(w[1]), byte(w[2]), byte(w[3])
			t[3] = byte(w[0] + w[1])
			t[5], t[6], t[7] = byte(w[0]+w[2]), byte(w[1]+w[2]), byte(w[0]+w[1]+w[2])
			for n := 9; n < 16; n++ {
				t[n] = t[n-8] + byte(w[3])
			}
			for n := range 16 {
				t[n] += lutBias
			}
			copy(t[16:], t[:16])
		}
	}
	return bq
}

// lutBias is added to every table entry: the four entries a row adds per
// pair of code bytes then sum to their signed sum plus 128, in 16 to 240,
// an unsigned byte the kernels widen without a further step.
const lutBias = 32

// lutOffset is the offset in bitQuery.lut of the table of byte j's low
// (half 0) or high (half 1) nibble.
func lutOffset(j, half int) int { return 128*(j/2) + 64*half + 32*(j%2) }

// scanBits estimates q·v for every row of nblocks code blocks (codes:
// nblocks·bitBlockBytes(nbits) bytes, fac: nblocks·bitFacPerBlock
// factors): est[blk·32+p] is the estimate of the row blockRow[p] of block
// blk, and bit p of masks[blk] is set when that estimate is ≥ bar.
func scanBits(codes []byte, fac []float32, nbits, nblocks int, bq *bitQuery, bar float32, est []float32, masks []uint32) {
	if nblocks == 0 {
		return
	}
	bb := bitBlockBytes(nbits)
	_ = codes[nblocks*bb-1]
	_ = fac[nblocks*bitFacPerBlock-1]
	_ = est[nblocks*bitBlock-1]
	_ = masks[nblocks-1]
	_ = bq.lut[nbits/8*64-1]
	if useAVX2 {
		scanBitsAVX2(&codes[0], &fac[0], &bq.lut[0], nbits/8, nblocks, &bq.par, bar, &est[0], &masks[0])
		return
	}
	scanBitsGo(codes, fac, nbits, nblocks, bq, bar, est, masks)
}

// scanBitsGo is the portable scanBits; its results are bit for bit the
// kernel's (the same integer sums, then the same float32 operations in the
// same order, none fused).
func scanBitsGo(codes []byte, fac []float32, nbits, nblocks int, bq *bitQuery, bar float32, est []float32, masks []uint32) {
	nb := nbits / 8
	bb := bitBlockBytes(nbits)
	d2, s := bq.par[0], bq.par[1]
	for blk := range nblocks {
		c := codes[blk*bb : (blk+1)*bb]
		f := fac[blk*bitFacPerBlock : (blk+1)*bitFacPerBlock]
		var m uint32
		for p := range bitBlock {
			r := int(blockRow[p])
			ip := 0
			for j := range nb {
				x := c[j*bitBlock+r]
				ip += int(bq.lut[lutOffset(j, 0)+int(x&15)]) + int(bq.lut[lutOffset(j, 1)+int(x>>4)]) - 2*lutBias
			}
			t := float32(float32(ip)*d2) - s
			e := f[p] * t
			est[blk*bitBlock+p] = e
			if e >= bar {
				m |= 1 << p
			}
		}
		masks[blk] = m
	}
}
