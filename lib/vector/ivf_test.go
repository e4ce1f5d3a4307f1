package vector

import (
	"math/rand"
	"slices"
	"testing"
)

// On clustered vectors the inverted file finds nearly all of the exact top
// 10 while scanning a fraction of the rows; results keep exact scores.
func TestIVFOnClusteredVectors(t *testing.T) {
	const dim, n, clusters = 64, 60000, 300
	r := rand.New(rand.NewSource(8))
	centers := make([][]float32, clusters)
	for i := range centers {
		centers[i] = unit(r, dim)
	}
	w, _ := newWriter(t, dim)
	m := model{}
	for l := range int64(n) {
		c := centers[r.Intn(clusters)]
		v := unit(r, dim)
		for j := range v {
			v[j] = c[j] + 0.25*v[j]
		}
		normalize(v)
		must(t, w.Upsert(l, v))
		m[l] = v
	}
	must(t, w.Flush())
	s := w.snap
	defer ForceANN(s, 1000)()
	x := s.segs[0].ivf.ready.Load()
	if x == nil || int(x.offs[x.nlist]) != n {
		t.Fatal("inverted file not built over every row")
	}
	hit, all := 0, 0
	for range 100 {
		c := centers[r.Intn(clusters)]
		q := unit(r, dim)
		for j := range q {
			q[j] = c[j] + 0.3*q[j]
		}
		normalize(q)
		got, err := s.Search(q, 10, nil)
		must(t, err)
		for _, h := range got {
			if h.Score != dotF32(q, m[h.Label]) {
				t.Fatalf("score of %d not exact", h.Label)
			}
		}
		for _, h := range exactTop(m, q, 10) {
			all++
			if slices.ContainsFunc(got, func(g Hit) bool { return g.Label == h.Label }) {
				hit++
			}
		}
	}
	if rec := float64(hit) / float64(all); rec < 0.98 {
		t.Errorf("recall@10 %.3f on clustered vectors", rec)
	}
}

func normalize(v []float32) {
	var s float32
	for _, x := range v {
		s += x * x
	}
	inv := 1 / sqrt32(s)
	for i := range v {
		v[i] *= inv
	}
}

func sqrt32(x float32) float32 {
	z := x
	for range 30 {
		z = (z + x/z) / 2
	}
	return z
}
