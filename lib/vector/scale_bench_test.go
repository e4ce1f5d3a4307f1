package vector

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Scale benchmarks: the exact float scan over an in-memory index
// (Index.Search) side by side with the format-2 snapshot's int8 path (int8
// codes scanned through mmap, candidates re-scored exactly) and its
// approximate path (one-bit codes first), at the Go tree's size (56.6k
// chunks) and the Linux kernel's (545k), 512-d random unit vectors (no
// structure: the hardest case for the one-bit estimate). Each reports
// ns/op, the bytes a query touches, and recall@10 against the exact scan
// on the same queries.

var scaleSizes = []int{56600, 545000}

type scaleFixture struct {
	ix   *Index // the exact baseline, in the heap
	path string // the same vectors as a format-2 index
	qs   [][]float32
}

var (
	scaleMu   sync.Mutex
	scaleFix  = map[int]*scaleFixture{}
	scaleRoot string
)

// scaleIndex builds (once per process) n random 512-d unit vectors in the
// heap and as a format-2 index written by a Writer flushing every 20k.
func scaleIndex(b *testing.B, n int) *scaleFixture {
	scaleMu.Lock()
	defer scaleMu.Unlock()
	if f := scaleFix[n]; f != nil {
		return f
	}
	if scaleRoot == "" {
		d, err := os.MkdirTemp("", "vecbench-")
		if err != nil {
			b.Fatal(err)
		}
		scaleRoot = d
	}
	const dim = 512
	ix, _ := randomIndex(b, int64(n), n, dim)
	path := filepath.Join(scaleRoot, strconv.Itoa(n), FileName("text"))
	os.MkdirAll(filepath.Dir(path), 0o700)
	w, err := OpenWriter(path)
	must(b, err)
	must(b, w.Reset(ix.Model(), dim))
	for i, l := range ix.labels {
		must(b, w.Upsert(l, ix.vecs[i*dim:(i+1)*dim]))
		if (i+1)%20000 == 0 {
			must(b, w.Flush())
		}
	}
	must(b, w.Flush())
	w.Close()
	r := rand.New(rand.NewSource(99))
	f := &scaleFixture{ix: ix, path: path}
	for range 64 {
		f.qs = append(f.qs, unit(r, dim))
	}
	scaleFix[n] = f
	return f
}

// TestMain removes the scale fixtures' files after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if scaleRoot != "" {
		os.RemoveAll(scaleRoot)
	}
	os.Exit(code)
}

func sizeName(n int) string {
	return strconv.FormatFloat(float64(n)/1000, 'f', -1, 64) + "k×512"
}

// BenchmarkScaleSearch: one k=10 query, exact float scan vs int8+rescore.
func BenchmarkScaleSearch(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(sizeName(n)+"/exact-float", func(b *testing.B) {
			f := scaleIndex(b, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := f.ix.Search(f.qs[i%len(f.qs)], 10, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*512*4)/1e6, "MB-touched/op")
		})
		b.Run(sizeName(n)+"/int8-rescore", func(b *testing.B) {
			defer func(v int) { ApproxMinVectors = v }(ApproxMinVectors)
			ApproxMinVectors = 0
			f := scaleIndex(b, n)
			s, err := Open(f.path)
			must(b, err)
			recall := recallAt10(b, f.ix, s, f.qs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(f.qs[i%len(f.qs)], 10, nil); err != nil {
					b.Fatal(err)
				}
			}
			c := rescoreCount(10)
			b.ReportMetric(float64(n*(codeStride(512)+4)+c*512*4)/1e6, "MB-touched/op")
			b.ReportMetric(recall, "recall@10")
		})
		b.Run(sizeName(n)+"/one-bit-int8-rescore", func(b *testing.B) {
			f := scaleIndex(b, n)
			s, err := Open(f.path)
			must(b, err)
			if !s.Approximate() {
				b.Fatal("not the approximate path")
			}
			recall := recallAt10(b, f.ix, s, f.qs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(f.qs[i%len(f.qs)], 10, nil); err != nil {
					b.Fatal(err)
				}
			}
			_, nbits := bitDims(512)
			b.ReportMetric(float64(n*(nbits/8+4)+bitCount(10)*codeStride(512)+approxRescoreCount(10)*512*4)/1e6, "MB-touched/op")
			b.ReportMetric(recall, "recall@10")
		})
	}
}

// recallAt10 is the mean fraction of the exact top 10 that s returns.
func recallAt10(b *testing.B, exact *Index, s *Snapshot, qs [][]float32) float64 {
	hit, all := 0, 0
	for _, q := range qs {
		want, err := exact.Search(q, 10, nil)
		must(b, err)
		got, err := s.Search(q, 10, nil)
		must(b, err)
		for _, h := range want {
			all++
			if slices.ContainsFunc(got, func(g Hit) bool { return g.Label == h.Label }) {
				hit++
			}
		}
	}
	return float64(hit) / float64(all)
}

// BenchmarkScaleOpen: the memory an opened index costs a server: the heap
// after a format-1 Load (the whole file) against a format-2 Open, and the
// resident set growth once a query has run (codes paged in through mmap).
func BenchmarkScaleOpen(b *testing.B) {
	for _, n := range scaleSizes {
		f := scaleIndex(b, n)
		legacy := f.path + ".v1"
		if _, err := os.Stat(legacy); err != nil {
			must(b, f.ix.WriteFile(legacy))
		}
		b.Run(sizeName(n)+"/format1-load", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h0, r0 := heapMB(), rssMB()
				ix, err := Load(legacy)
				must(b, err)
				_, err = ix.Search(f.qs[0], 10, nil)
				must(b, err)
				b.ReportMetric(heapMB()-h0, "heap-MB")
				b.ReportMetric(rssMB()-r0, "RSS-MB")
				runtime.KeepAlive(ix)
			}
		})
		b.Run(sizeName(n)+"/format2-open", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dropCache(f.path)
				h0, r0 := heapMB(), rssMB()
				s, err := Open(f.path)
				must(b, err)
				_, err = s.Search(f.qs[0], 10, nil)
				must(b, err)
				b.ReportMetric(heapMB()-h0, "heap-MB")
				b.ReportMetric(rssMB()-r0, "RSS-MB")
				runtime.KeepAlive(s)
			}
		})
	}
}

// dropCache collects garbage so earlier snapshots' mappings are released.
func dropCache(string) {
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
}

func heapMB() float64 {
	dropCache("")
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / 1e6
}

// rssMB reads the resident set size from /proc (0 elsewhere).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1000
		}
	}
	return 0
}
