package vector

import (
	"math/rand"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// exactTop is the reference: the k best of m by exact dot product, ties by
// ascending label.
func exactTop(m model, q []float32, k int) []Hit {
	var all []Hit
	for l, v := range m {
		all = append(all, Hit{Label: l, Score: dotF32(q, v)})
	}
	slices.SortFunc(all, bestFirst)
	return all[:min(k, len(all))]
}

// Searching segments (with overwritten and deleted rows) returns exact
// scores, never a dead row, and the exact scan's top 10 for nearly every
// query.
func TestSnapshotSearchMatchesExactScan(t *testing.T) {
	const dim = 64
	w, _ := newWriter(t, dim)
	r := rand.New(rand.NewSource(11))
	m := churn(t, w, r, 12, 800, 300, 12000)
	s := w.snap
	if s.Segments() < 2 {
		t.Fatalf("want several segments, have %d", s.Segments())
	}
	same, queries := 0, 200
	for range queries {
		q := unit(r, dim)
		got, err := s.Search(q, 10, nil)
		must(t, err)
		want := exactTop(m, q, 10)
		for _, h := range got {
			v, ok := m[h.Label]
			if !ok {
				t.Fatalf("hit %d is deleted or overwritten", h.Label)
			}
			if h.Score != dotF32(q, v) {
				t.Fatalf("hit %d score %v, exact %v", h.Label, h.Score, dotF32(q, v))
			}
		}
		if slices.Equal(got, want) {
			same++
		}
	}
	if same < queries*98/100 {
		t.Errorf("top 10 equal to the exact scan for %d of %d queries", same, queries)
	}
	// Big enough to search in parts: the same result as one part.
	if _, err := s.Search(make([]float32, dim+1), 3, nil); errcode.Of(err) != errcode.InvalidField {
		t.Errorf("wrong-dimension query: %v", err)
	}
}

// inParts scans every row exactly once, whichever worker claims each
// piece, and keeps the best hits of all of them.
func TestInPartsScansEveryRowOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(maxParts))
	for _, c := range []struct{ n, piece int }{{1, 5}, {39, 5}, {40, 5}, {41, 5}, {1000, 7}, {1000, 1}, {8 * 64, 64}} {
		seen := make([]atomic.Int32, c.n)
		score := func(r int) float32 { return float32((r * 7919) % 1009) }
		got := inParts(c.n, c.piece, nil, func() topSet { return newTopSet(10) }, func(h *topSet, lo, hi int) {
			for r := lo; r < hi; r++ {
				seen[r].Add(1)
				if h.admits(score(r), int64(r)) {
					h.push(Hit{Label: int64(r), Score: score(r)})
				}
			}
		})
		for r := range seen {
			if n := seen[r].Load(); n != 1 {
				t.Fatalf("n=%d piece=%d: row %d scanned %d times", c.n, c.piece, r, n)
			}
		}
		all := make([]Hit, c.n)
		for r := range all {
			all[r] = Hit{Label: int64(r), Score: score(r)}
		}
		if best, want := bestOf(got, 10), bestOf(all, 10); !slices.Equal(best, want) {
			t.Fatalf("n=%d piece=%d: best %v, want %v", c.n, c.piece, best, want)
		}
	}
}

// bestOf returns the k best of hs, best first.
func bestOf(hs []Hit, k int) []Hit {
	h := topK{k: k}
	for _, x := range hs {
		if h.admits(x.Score, x.Label) {
			h.push(x)
		}
	}
	return h.sorted()
}

// The concurrent search over parts returns what the sequential one does.
func TestSnapshotSearchInParts(t *testing.T) {
	const dim = 32
	w, _ := newWriter(t, dim)
	r := rand.New(rand.NewSource(12))
	for l := range int64(3 * partMin) {
		must(t, w.Upsert(l, unit(r, dim)))
		if l%20000 == 0 {
			must(t, w.Flush())
		}
	}
	must(t, w.Flush())
	s := w.snap
	for range 20 {
		q := unit(r, dim)
		par, err := s.Search(q, 10, nil)
		must(t, err)
		seq, err := s.Search(q, 10, func(int64) bool { return true }) // accept forces one part
		must(t, err)
		if !slices.Equal(par, seq) {
			t.Fatalf("parts %v, sequential %v", par, seq)
		}
	}
	// accept filters.
	got, _ := s.Search(unit(r, dim), 10, func(l int64) bool { return l%2 == 0 })
	for _, h := range got {
		if h.Label%2 != 0 || len(got) != 10 {
			t.Fatalf("accept ignored: %v", got)
		}
	}
}

// After a flush the Reloader's new snapshot reuses the mapped segments of
// the previous one and maps only the new segment.
func TestReloaderReusesSegments(t *testing.T) {
	w, path := newWriter(t, 8)
	r := rand.New(rand.NewSource(3))
	for l := range int64(50) {
		w.Upsert(l, unit(r, 8))
	}
	must(t, w.Flush())
	rl := NewReloader(path, ReloaderOptions{})
	defer rl.Close()
	<-rl.Ready()
	before := rl.Current()
	w.Upsert(99, unit(r, 8))
	w.Delete(7)
	must(t, w.Flush())
	must(t, rl.Refresh())
	after := rl.Current()
	if after == before || after.Segments() != 2 || after.segs[0] != before.segs[0] {
		t.Fatalf("segments not reused: before %d, after %d", before.Segments(), after.Segments())
	}
	if after.Len() != 50 || after.Has(7) || !after.Has(99) || !before.Has(7) {
		t.Errorf("after: len %d has7 %v has99 %v; before has7 %v", after.Len(), after.Has(7), after.Has(99), before.Has(7))
	}
}

// Searches on a Reloader's snapshots never fail or see a partial index
// while a writer flushes and compacts (removing merged segment files).
func TestReloaderUnderFlushAndCompaction(t *testing.T) {
	const dim = 16
	w, path := newWriter(t, dim)
	r := rand.New(rand.NewSource(4))
	must(t, w.Flush())
	rl := NewReloader(path, ReloaderOptions{})
	defer rl.Close()
	<-rl.Ready()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var fails atomic.Int64
	for range 2 {
		wg.Go(func() {
			q := make([]float32, dim)
			q[0] = 1
			for !stop.Load() {
				if err := rl.Refresh(); err != nil {
					fails.Add(1)
				}
				s := rl.Current()
				hs, err := s.Search(q, 5, nil)
				// Every flush adds 100 labels: a snapshot holds a multiple.
				if err != nil || s.Len()%100 != 0 || len(hs) != min(5, s.Len()) {
					fails.Add(1)
				}
			}
		})
	}
	for i := range 40 {
		for j := range 100 {
			must(t, w.Upsert(int64(i*100+j), unit(r, dim)))
		}
		must(t, w.Flush())
	}
	stop.Store(true)
	wg.Wait()
	if fails.Load() > 0 {
		t.Errorf("%d failed searches or refreshes", fails.Load())
	}
	must(t, rl.Refresh())
	if rl.Current().Len() != 4000 {
		t.Errorf("final snapshot has %d", rl.Current().Len())
	}
}

// After the index is removed and rebuilt (reindex) with the same shape, a
// running Reloader serves the new vectors, never a mapped segment of the
// old index that had the same number.
func TestReloaderAfterRebuild(t *testing.T) {
	w, path := newWriter(t, 8)
	r := rand.New(rand.NewSource(5))
	old := unit(r, 8)
	must(t, w.Upsert(1, old))
	must(t, w.Flush())
	w.Close()
	rl := NewReloader(path, ReloaderOptions{})
	defer rl.Close()
	<-rl.Ready()
	os.Remove(path)
	os.RemoveAll(segDirOf(path))
	w2, err := OpenWriter(path)
	must(t, err)
	defer w2.Close()
	must(t, w2.Reset("m", 8))
	fresh := unit(r, 8)
	must(t, w2.Upsert(1, fresh))
	must(t, w2.Flush())
	must(t, rl.Refresh())
	if v, _ := rl.Current().Vector(1); !slices.Equal(v, fresh) {
		t.Fatalf("reloader serves the old index's vector after a rebuild")
	}
}
