package vector_test

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// BenchmarkApproxBySize is the evidence for ApproxMinVectors: random
// subsets of the real index $DIR2MCP_BENCH_VECTORS (a vectors_<kind>.flat,
// e.g. the scale bench's Go tree code index) of growing size, each written
// as a fresh index, searched on the int8 path and on the approximate path
// (forced) side by side: CPU per k=150 search and recall@10 / recall@150 /
// identical top 10 against the exact scan, for the bench queries (when the
// index's embedder is this build's offline one) and 200 held-out vectors
// (left out of the subset).
func BenchmarkApproxBySize(b *testing.B) {
	file := os.Getenv("DIR2MCP_BENCH_VECTORS")
	if file == "" {
		b.Skip("set DIR2MCP_BENCH_VECTORS to a vectors_<kind>.flat")
	}
	src, err := vector.Open(file)
	if err != nil {
		b.Fatal(err)
	}
	embs, err := embedders.Open(config.Default())
	if err != nil {
		b.Fatal(err)
	}
	kind := "code"
	if filepath.Base(file) == vector.FileName("text") {
		kind = "text"
	}
	sets := stateQueries(b, src, embs[kind], kind)
	held := sets[len(sets)-1]
	heldOut := map[int64]bool{}
	for _, l := range held.self {
		heldOut[l] = true
	}
	held.self = fill(len(held.qs), -1) // not in the subsets
	sets[len(sets)-1] = held
	var pool []int64
	for _, l := range src.Labels() {
		if !heldOut[l] {
			pool = append(pool, l)
		}
	}
	r := rand.New(rand.NewSource(21))
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for _, n := range []int{2000, 4000, 8000, 16000, 32000, len(pool)} {
		if n > len(pool) {
			continue
		}
		path := filepath.Join(b.TempDir(), vector.FileName(kind))
		w, err := vector.OpenWriter(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Reset(src.Model(), src.Dim()); err != nil {
			b.Fatal(err)
		}
		for _, l := range pool[:n] {
			v, _ := src.Vector(l)
			w.Upsert(l, v)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		w.Close()
		snap, err := vector.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		exact := exactIndex(snap)
		for _, set := range sets {
			truth := make([][]vector.Hit, len(set.qs))
			for i, q := range set.qs {
				truth[i] = exactTop(b, exact, q, 150, -1)
			}
			b.Run(fmt.Sprintf("%s/n=%d/%s", kind, n, set.name), func(b *testing.B) {
				old := vector.ApproxMinVectors
				defer func() { vector.ApproxMinVectors = old }()
				modes := []struct {
					name string
					min  int
				}{{"int8", 0}, {"approx", 1}}
				cpu := make([]float64, len(modes))
				type figures struct{ r10, r150, same float64 }
				fig := make([]figures, len(modes))
				for i, m := range modes {
					vector.ApproxMinVectors = m.min
					fig[i].r10, fig[i].r150, fig[i].same = stateRecall(b, snap, set.qs, set.self, truth)
				}
				b.ResetTimer()
				for range b.N {
					for i, m := range modes {
						vector.ApproxMinVectors = m.min
						t0 := cpuTime()
						for _, q := range set.qs {
							if _, err := snap.Search(q, 150, nil); err != nil {
								b.Fatal(err)
							}
						}
						cpu[i] += cpuTime() - t0
					}
				}
				for i, m := range modes {
					b.ReportMetric(cpu[i]/float64(b.N*len(set.qs))/1e3, m.name+"-cpu-µs/search")
					b.ReportMetric(fig[i].r10, m.name+"-recall@10")
					b.ReportMetric(fig[i].r150, m.name+"-recall@150")
					b.ReportMetric(fig[i].same, m.name+"-top10-identical")
				}
			})
		}
	}
}
