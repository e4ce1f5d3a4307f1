package vector

import (
	"math/rand"
	"testing"
)

// The assembly kernel computes exactly the portable integer dot products,
// including at the int8 extremes.
func TestDotsI8KernelMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, dim := range []int{1, 31, 32, 100, 512, 1536} {
		stride := codeStride(dim)
		rows := 37
		q := make([]int16, stride)
		codes := make([]int8, rows*stride)
		for i := 0; i < dim; i++ {
			q[i] = int16(r.Intn(255) - 127)
		}
		for i := range codes {
			codes[i] = int8(r.Intn(256) - 128)
		}
		codes[0], q[0] = -128, -127
		got, want := make([]int32, rows), make([]int32, rows)
		dotsI8(q, codes, got)
		dotsI8Go(q, codes, want)
		for i := range got {
			var s int32
			for j := 0; j < stride; j++ {
				s += int32(q[j]) * int32(codes[i*stride+j])
			}
			if got[i] != want[i] || want[i] != s {
				t.Fatalf("dim %d row %d: kernel %d, portable %d, reference %d (avx2=%v)", dim, i, got[i], want[i], s, useAVX2)
			}
		}
	}
}

// A quantized dot product approximates the float one closely.
func TestQuantizeApproximatesDot(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	dim := 384
	q, v := unit(r, dim), unit(r, dim)
	qc, qs := quantizeQuery(q)
	c := make([]int8, codeStride(dim))
	s := quantize(v, c)
	out := make([]int32, 1)
	dotsI8(qc, c, out)
	var exact float32
	for i := range q {
		exact += q[i] * v[i]
	}
	if approx := float32(out[0]) * qs * s; approx-exact > 0.01 || exact-approx > 0.01 {
		t.Errorf("approx %v, exact %v", approx, exact)
	}
}
