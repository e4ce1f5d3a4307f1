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
