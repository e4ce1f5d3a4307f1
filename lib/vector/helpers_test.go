package vector

import (
	"math"
	"math/rand"
	"testing"
)

// unit returns a random L2-normalised vector.
func unit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var s float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// randomIndex returns an index of n random unit vectors with labels
// 1000, 1001, ... and the vectors by label.
func randomIndex(t testing.TB, seed int64, n, dim int) (*Index, map[int64][]float32) {
	t.Helper()
	r := rand.New(rand.NewSource(seed))
	ix, err := New("test-model/"+itoaTest(dim), dim)
	if err != nil {
		t.Fatal(err)
	}
	m := make(map[int64][]float32, n)
	for i := 0; i < n; i++ {
		v := unit(r, dim)
		l := int64(1000 + i)
		if err := ix.Upsert(l, v); err != nil {
			t.Fatal(err)
		}
		m[l] = v
	}
	return ix, m
}

func itoaTest(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
