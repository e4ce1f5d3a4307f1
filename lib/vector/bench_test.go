package vector

import (
	"math/rand"
	"path/filepath"
	"testing"
)

const benchN = 60000

var benchIndexes = map[int]*Index{}

func benchIndex(b *testing.B, dim int) *Index {
	if ix := benchIndexes[dim]; ix != nil {
		return ix
	}
	ix, _ := randomIndex(b, 42, benchN, dim)
	benchIndexes[dim] = ix
	return ix
}

func benchSearch(b *testing.B, dim int, accept func(int64) bool) {
	ix := benchIndex(b, dim)
	r := rand.New(rand.NewSource(1))
	qs := make([][]float32, 16)
	for i := range qs {
		qs[i] = unit(r, dim)
	}
	b.SetBytes(int64(benchN * dim * 4))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ix.Search(qs[i%len(qs)], 50, accept); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch is one exact k=50 query over 60k vectors on one core.
func BenchmarkSearch(b *testing.B) {
	b.Run("60k×256", func(b *testing.B) { benchSearch(b, 256, nil) })
	b.Run("60k×512", func(b *testing.B) { benchSearch(b, 512, nil) })
	deleted := make(map[int64]bool)
	for l := int64(1000); l < 1000+benchN; l += 10 {
		deleted[l] = true
	}
	b.Run("60k×512/filter", func(b *testing.B) {
		benchSearch(b, 512, func(l int64) bool { return !deleted[l] })
	})
}

// BenchmarkLoad reads and verifies a 60k×512 index file (123 MB).
func BenchmarkLoad(b *testing.B) {
	ix := benchIndex(b, 512)
	path := filepath.Join(b.TempDir(), FileName("text"))
	if err := ix.WriteFile(path); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(benchN * (512*4 + 8)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if got.Len() != benchN {
			b.Fatal("short load")
		}
	}
}

// BenchmarkWriteFile writes a 60k×512 index atomically, fsyncs included.
func BenchmarkWriteFile(b *testing.B) {
	ix := benchIndex(b, 512)
	path := filepath.Join(b.TempDir(), FileName("text"))
	b.SetBytes(int64(benchN * (512*4 + 8)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := ix.WriteFile(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanBits is the one-bit scan alone (kernel and, for comparison,
// the portable code) over random codes: every row's estimate and mask.
func BenchmarkScanBits(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, c := range []struct{ n, dim int }{{32, 512}, {1024, 512}, {8192, 512}, {56600, 512}, {546000, 512}, {56600, 1536}} {
		dp, nbits := bitDims(c.dim)
		nb := bitBlocks(c.n)
		codes := make([]byte, nb*bitBlockBytes(nbits))
		r.Read(codes)
		fac := make([]float32, nb*bitFacPerBlock)
		for i := range fac {
			fac[i] = r.Float32()
		}
		bq := newBitQuery(rotationFor(dp), nbits, unit(r, c.dim))
		est := make([]float32, 16*bitBlock)
		masks := make([]uint32, 16)
		name := sizeName(c.n)
		if c.dim != 512 {
			name = itoaTest(c.n/1000) + "k×" + itoaTest(c.dim)
		}
		for _, kernel := range []bool{true, false} {
			if kernel && !useAVX2 {
				continue
			}
			sub := name + "/avx2"
			if !kernel {
				sub = name + "/go"
			}
			b.Run(sub, func(b *testing.B) {
				b.SetBytes(int64(len(codes) + 4*len(fac)))
				for i := 0; i < b.N; i++ {
					bb := bitBlockBytes(nbits)
					for b0 := 0; b0 < nb; b0 += 16 {
						m := min(16, nb-b0)
						c, f := codes[b0*bb:(b0+m)*bb], fac[b0*bitFacPerBlock:(b0+m)*bitFacPerBlock]
						if kernel {
							scanBits(c, f, nbits, m, bq, 1e9, est, masks)
						} else {
							scanBitsGo(c, f, nbits, m, bq, 1e9, est, masks)
						}
					}
				}
			})
		}
	}
}

// BenchmarkQueryPrep is what a search spends on its query before scanning.
func BenchmarkQueryPrep(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, dim := range []int{512, 1536} {
		q := unit(r, dim)
		dp, nbits := bitDims(dim)
		b.Run(itoaTest(dim)+"/bits", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				newBitQuery(rotationFor(dp), nbits, q)
			}
		})
		b.Run(itoaTest(dim)+"/int8", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				quantizeQuery(q)
			}
		})
	}
}

// BenchmarkEncodeBits is what a flush spends per vector on its one-bit
// code (rotation, signs, factor).
func BenchmarkEncodeBits(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, dim := range []int{512, 1536} {
		v := unit(r, dim)
		enc := newBitEncoder(dim)
		code := make([]byte, enc.nbits/8)
		b.Run(itoaTest(dim), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				enc.encode(v, code)
			}
		})
	}
}

// BenchmarkNthLargest: bitBar's selection of the rank-m estimate of its
// sample, by heap and by quickselect, on a sample of the Linux source's
// size (11,744 estimates, m = 47) and the Go tree's (1,024, m = 72).
func BenchmarkNthLargest(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	for _, c := range []struct{ n, m int }{{11744, 47}, {1024, 72}} {
		a := make([]float32, c.n)
		for i := range a {
			a[i] = float32(r.NormFloat64())
		}
		buf := make([]float32, c.n)
		for _, f := range []struct {
			name string
			fn   func([]float32, int) float32
		}{{"heap", nthLargestHeap}, {"quickselect", nthLargestSelect}} {
			b.Run(itoaTest(c.n)+"/"+f.name, func(b *testing.B) {
				for range b.N {
					copy(buf, a)
					f.fn(buf, c.m)
				}
			})
		}
	}
}
