package vector

import (
	"math/rand"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/viterin/vek/vek32"
)

// bruteForce ranks every accepted label by (score desc, label asc).
func bruteForce(ix *Index, q []float32, k int, accept func(int64) bool) []Hit {
	var all []Hit
	for _, l := range ix.Labels() {
		if accept != nil && !accept(l) {
			continue
		}
		v, _ := ix.Vector(l)
		all = append(all, Hit{Label: l, Score: vek32.Dot(q, v)})
	}
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	if len(all) > k {
		all = all[:k]
	}
	return all
}

func TestSearchMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, tc := range []struct{ n, dim, k int }{
		{1, 8, 5}, {10, 8, 10}, {10, 8, 50}, {500, 33, 1}, {2000, 64, 50}, {3000, 256, 7},
	} {
		ix, _ := randomIndex(t, int64(tc.n), tc.n, tc.dim)
		for trial := 0; trial < 5; trial++ {
			q := unit(r, tc.dim)
			got, err := ix.Search(q, tc.k, nil)
			must(t, err)
			want := bruteForce(ix, q, tc.k, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d dim=%d k=%d: Search differs from brute force\n got %v\nwant %v", tc.n, tc.dim, tc.k, got, want)
			}
		}
	}
}

func TestSearchTiesOrderByLabel(t *testing.T) {
	// Many identical vectors: every score ties, so the result must be the
	// k smallest labels regardless of insertion order.
	ix, _ := New("m", 4)
	r := rand.New(rand.NewSource(3))
	labels := r.Perm(200)
	a := []float32{0.5, 0.5, 0.5, 0.5}
	b := []float32{1, 0, 0, 0}
	for _, l := range labels {
		v := a
		if l%3 == 0 {
			v = b
		}
		must(t, ix.Upsert(int64(l), v))
	}
	q := []float32{0.5, 0.5, 0.5, 0.5} // a scores 1, b scores 0.5
	got, err := ix.Search(q, 20, nil)
	must(t, err)
	want := bruteForce(ix, q, 20, nil)
	if !slices.Equal(got, want) {
		t.Fatalf("ties: got %v\nwant %v", got, want)
	}
	if got[0].Label != 1 || got[1].Label != 2 || got[2].Label != 4 {
		t.Fatalf("ties not ordered by ascending label: %v", got[:3])
	}
	// Cut-off inside the lower tie group.
	got, _ = ix.Search(q, 140, nil)
	if want := bruteForce(ix, q, 140, nil); !slices.Equal(got, want) {
		t.Fatal("ties across the k boundary differ from brute force")
	}
}

func TestSearchAcceptFilter(t *testing.T) {
	ix, vecs := randomIndex(t, 4, 1000, 32)
	q := vecs[1500]
	deleted := func(l int64) bool { return l%2 == 0 }
	calls := map[int64]int{}
	accept := func(l int64) bool {
		calls[l]++
		return !deleted(l)
	}
	got, err := ix.Search(q, 25, accept)
	must(t, err)
	if want := bruteForce(ix, q, 25, func(l int64) bool { return !deleted(l) }); !slices.Equal(got, want) {
		t.Fatalf("filtered search differs from brute force:\n got %v\nwant %v", got, want)
	}
	for _, h := range got {
		if deleted(h.Label) {
			t.Fatalf("rejected label %d returned", h.Label)
		}
	}
	for l, c := range calls {
		if c != 1 {
			t.Fatalf("accept called %d times for label %d", c, l)
		}
	}
	if len(calls) >= ix.Len() {
		t.Fatalf("accept called for all %d labels; want only top-k candidates", len(calls))
	}
	// A filter that rejects everything returns nothing.
	got, _ = ix.Search(q, 10, func(int64) bool { return false })
	if len(got) != 0 {
		t.Fatalf("reject-all returned %v", got)
	}
}

func TestSearchRejectsBadQuery(t *testing.T) {
	ix, _ := randomIndex(t, 5, 10, 8)
	_, err := ix.Search(make([]float32, 9), 3, nil)
	if errcode.Of(err) != errcode.InvalidField {
		t.Fatalf("dim mismatch: %v, want INVALID_FIELD", err)
	}
	if hits, err := ix.Search(make([]float32, 8), 0, nil); hits != nil || err != nil {
		t.Fatalf("k=0: %v, %v", hits, err)
	}
}

func TestConcurrentSearchAndMutation(t *testing.T) {
	ix, _ := randomIndex(t, 6, 400, 16)
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		go func(g int) {
			r := rand.New(rand.NewSource(int64(g)))
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				hits, err := ix.Search(unit(r, 16), 10, nil)
				if err != nil {
					errs <- err
					return
				}
				if !sort.SliceIsSorted(hits, func(i, j int) bool { return better(hits[i], hits[j]) }) {
					errs <- errcode.New(errcode.Internal, "unsorted hits")
					return
				}
			}
		}(g)
	}
	path := filepath.Join(t.TempDir(), FileName("text"))
	go func() {
		for {
			select {
			case <-done:
				errs <- nil
				return
			default:
			}
			if err := ix.WriteFile(path); err != nil {
				errs <- err
				return
			}
			if _, err := Load(path); err != nil {
				errs <- err
				return
			}
		}
	}()
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 2000; i++ {
		l := int64(1000 + r.Intn(600))
		if r.Intn(3) == 0 {
			ix.Delete(l)
		} else {
			must(t, ix.Upsert(l, unit(r, 16)))
		}
	}
	close(done)
	for g := 0; g < 5; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}

}

// An index large enough to be scanned in parts returns exactly what one
// sequential scan returns, ties across parts included.
func TestSearchInPartsMatchesBruteForce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(maxParts))
	n := 2*maxParts*partMin + 3
	ix, _ := New("m", 4)
	r := rand.New(rand.NewSource(5))
	for i, l := range r.Perm(n) {
		v := unit(r, 4)
		if i%5 == 0 {
			v = []float32{0.5, 0.5, 0.5, 0.5} // a tie group spread over every part
		}
		must(t, ix.Upsert(int64(l), v))
	}
	for _, q := range [][]float32{{0.5, 0.5, 0.5, 0.5}, unit(r, 4), unit(r, 4)} {
		for _, k := range []int{1, 50, 3000} {
			got, err := ix.Search(q, k, nil)
			must(t, err)
			if want := bruteForce(ix, q, k, nil); !slices.Equal(got, want) {
				t.Fatalf("k=%d: Search in parts differs from brute force", k)
			}
		}
	}
}
