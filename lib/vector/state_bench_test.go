package vector_test

import (
	"hash/fnv"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// BenchmarkStateSearch measures Snapshot.Search on the vector files of
// existing state dirs ($DIR2MCP_BENCH_STATES, comma-separated; e.g. the
// scale bench's, kept with -keep), per index kind, side by side: the int8
// path ("int8": every int8 code scanned, what every search did before the
// one-bit codes) and the path Search takes by default ("default", the
// approximate path above ApproxMinVectors). Each op is one query of the
// server's size (k = 150: depth 100 + 10·5 oversampling); an op is every
// query once per mode, the modes alternating so both see the same load,
// and each mode's figure is the process's CPU time per search
// (cpu-µs/search, summed over cores: large indexes are scanned in parts).
//
// Queries are the bench's (testdata/eval/gostd/*.queries.tsv), embedded
// as the server embeds them: by the offline embedder when it made the
// index, by the bench's fake OpenAI-compatible embedder (a bag of hashed
// words, scripts/bench/fakeembed.go) when the model is openai/…; and
// "held-out": 200 stored vectors as queries, their own label left out.
// Reported: recall@10 (of the exact float scan's top 10 within the top 10
// of a k=10 search), recall@150 of the k=150 search, and the fraction of
// queries whose k=10 result is identical to the exact scan's.
func BenchmarkStateSearch(b *testing.B) {
	dirs := os.Getenv("DIR2MCP_BENCH_STATES")
	if dirs == "" {
		b.Skip("set DIR2MCP_BENCH_STATES to state dirs")
	}
	embs, err := embedders.Open(config.Default())
	if err != nil {
		b.Fatal(err)
	}
	for _, dir := range strings.Split(dirs, ",") {
		for _, kind := range []string{"text", "code"} {
			file := filepath.Join(dir, vector.FileName(kind))
			snap, err := vector.Open(file)
			if err != nil {
				b.Logf("%s: %v", file, err)
				continue
			}
			name := filepath.Base(dir) + "/" + kind
			sets := stateQueries(b, snap, embs[kind], kind)
			exact := exactIndex(snap)
			for _, set := range sets {
				truth := make([][]vector.Hit, len(set.qs))
				for i, q := range set.qs {
					truth[i] = exactTop(b, exact, q, 150, set.self[i])
				}
				b.Run(name+"/"+set.name, func(b *testing.B) {
					old := vector.ApproxMinVectors
					defer func() { vector.ApproxMinVectors = old }()
					modes := []struct {
						name string
						min  int
					}{{"int8", 0}, {"default", old}}
					cpu := make([]float64, len(modes))
					type figures struct{ r10, r150, same float64 }
					fig := make([]figures, len(modes))
					approx := false
					for i, m := range modes {
						vector.ApproxMinVectors = m.min
						fig[i].r10, fig[i].r150, fig[i].same = stateRecall(b, snap, set.qs, set.self, truth)
						approx = approx || snap.Approximate()
					}
					b.ResetTimer()
					// The modes alternate, so both see the same load.
					for n := 0; n < b.N; n++ {
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
						b.ReportMetric(fig[i].r10, m.name+"-recall@10")
						b.ReportMetric(fig[i].r150, m.name+"-recall@150")
						b.ReportMetric(fig[i].same, m.name+"-top10-identical")
					}
					if approx {
						b.ReportMetric(1, "approx")
					}
					for i, m := range modes {
						b.ReportMetric(cpu[i]/float64(b.N*len(set.qs))/1e3, m.name+"-cpu-µs/search")
					}
					b.ReportMetric(float64(snap.Len()), "vectors")
				})
			}
		}
	}
}

type querySet struct {
	name string
	qs   [][]float32
	self []int64 // label to leave out (held-out queries), else -1
}

// stateQueries returns the bench queries (when snap's model can be
// reproduced) and 200 held-out stored vectors.
func stateQueries(b *testing.B, snap *vector.Snapshot, emb embed.Embedder, kind string) []querySet {
	var sets []querySet
	texts := benchQueryTexts(b)
	switch {
	case emb != nil && emb.ID() == snap.Model():
		qs := evalQueries(b, emb, kind, filepath.Join("..", "..", "testdata", "eval", "gostd"))
		sets = append(sets, querySet{name: "bench", qs: qs, self: fill(len(qs), -1)})
	case strings.HasPrefix(snap.Model(), "openai/"):
		var qs [][]float32
		for _, t := range texts {
			v := make([]float32, snap.Dim())
			fakeBagOfWords(t, v)
			qs = append(qs, v)
		}
		sets = append(sets, querySet{name: "bench", qs: qs, self: fill(len(qs), -1)})
	}
	labels := snap.Labels()
	r := rand.New(rand.NewSource(11))
	held := querySet{name: "held-out"}
	for range min(200, len(labels)) {
		l := labels[r.Intn(len(labels))]
		v, _ := snap.Vector(l)
		held.qs, held.self = append(held.qs, v), append(held.self, l)
	}
	return append(sets, held)
}

func fill(n int, v int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func benchQueryTexts(b *testing.B) []string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "eval", "gostd", "*.queries.tsv"))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if _, text, ok := strings.Cut(line, "\t"); ok && text != "" {
				out = append(out, text)
			}
		}
	}
	return out
}

// fakeBagOfWords is scripts/bench/fakeembed.go's bagOfWords: the unit-length
// sum of ±1 at the hashed position of each lower-cased word.
func fakeBagOfWords(s string, vec []float32) {
	clear(vec)
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	for _, w := range words {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		vec[x%uint64(len(vec))] += sign
	}
	var n float64
	for _, v := range vec {
		n += float64(v * v)
	}
	if n == 0 {
		vec[0], n = 1, 1
	}
	inv := float32(1 / math.Sqrt(n))
	for i := range vec {
		vec[i] *= inv
	}
}

// exactIndex copies snap's live vectors into an in-memory exact index.
func exactIndex(snap *vector.Snapshot) *vector.Index {
	ix, _ := vector.New(snap.Model(), snap.Dim())
	for _, l := range snap.Labels() {
		v, _ := snap.Vector(l)
		ix.Upsert(l, v)
	}
	return ix
}

// exactTop is the exact float scan's top k, without label self.
func exactTop(b *testing.B, ix *vector.Index, q []float32, k int, self int64) []vector.Hit {
	hs, err := ix.Search(q, k+1, nil)
	if err != nil {
		b.Fatal(err)
	}
	return dropLabel(hs, self, k)
}

func dropLabel(hs []vector.Hit, self int64, k int) []vector.Hit {
	out := hs[:0:0]
	for _, h := range hs {
		if h.Label != self {
			out = append(out, h)
		}
	}
	return out[:min(k, len(out))]
}

// stateRecall compares snap.Search with the exact top 150 of each query.
func stateRecall(b *testing.B, snap *vector.Snapshot, qs [][]float32, self []int64, truth [][]vector.Hit) (r10, r150, same float64) {
	var hit10, hit150, all10, all150, eq int
	for i, q := range qs {
		got10, err := snap.Search(q, 11, nil)
		if err != nil {
			b.Fatal(err)
		}
		got10 = dropLabel(got10, self[i], 10)
		got150, err := snap.Search(q, 151, nil)
		if err != nil {
			b.Fatal(err)
		}
		got150 = dropLabel(got150, self[i], 150)
		want := truth[i]
		if slices.Equal(got10, want[:min(10, len(want))]) {
			eq++
		}
		for j, h := range want {
			has := func(g vector.Hit) bool { return g.Label == h.Label }
			if j < 10 {
				all10++
				if slices.ContainsFunc(got10, has) {
					hit10++
				}
			}
			all150++
			if slices.ContainsFunc(got150, has) {
				hit150++
			}
		}
	}
	return float64(hit10) / float64(all10), float64(hit150) / float64(all150), float64(eq) / float64(len(qs))
}
