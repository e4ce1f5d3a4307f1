package vector_test

import (
	"bufio"
	"context"
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

// BenchmarkRecallEvalQueries measures, on the `make eval` indexes under
// $TMPDIR/dir2mcp-eval/state (made by the offline default embedder), how
// Search compares with the exact float scan for the eval sets' real
// queries (testdata/eval/<corpus>/*.queries.tsv), embedded as the server
// embeds them (by this build's offline embedder, which need not be the
// exact table that made the index): recall@10, and the fraction of
// queries whose top 10 (labels and order) is identical. "default" is the
// package defaults (the approximate path at ApproxMinVectors; "approx"
// reports whether it was taken); "int8/cands=N" the int8 path re-scoring
// N candidates (RescoreFactor·k, RescoreMin 0); "approx/bitcands=N" the
// approximate path forced whatever the size, keeping N one-bit candidates
// (the default 1000, and 250). The "ivf-R-P" rows force the inverted
// file (ivf.go, off by default) with R rows per list, probing P‰ of the lists.
func BenchmarkRecallEvalQueries(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(os.TempDir(), "dir2mcp-eval", "state", "*-orig-*", "vectors_*.flat"))
	if len(files) == 0 {
		b.Skip("no eval state dirs (run make eval first)")
	}
	embs, err := embedders.Open(config.Default())
	if err != nil {
		b.Skip(err)
	}
	for _, file := range files {
		snap, err := vector.Open(file)
		if err != nil || snap.Len() < 100 {
			continue
		}
		kind := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "vectors_"), ".flat")
		emb := embs[kind]
		// The index may come from an earlier table of the same embedder;
		// the comparison is the same query against the same vectors.
		if emb == nil || emb.Dim() != snap.Dim() {
			continue
		}
		corpus, _, _ := strings.Cut(filepath.Base(filepath.Dir(file)), "-")
		qs := evalQueries(b, emb, kind, filepath.Join("..", "..", "testdata", "eval", corpus))
		if len(qs) == 0 {
			continue
		}
		exact, _ := vector.New(snap.Model(), snap.Dim())
		for _, l := range snap.Labels() {
			v, _ := snap.Vector(l)
			exact.Upsert(l, v)
		}
		name := corpus + "/" + kind
		for _, cfg := range [][2]int{{2048, 100}, {256, 300}} {
			b.Run(name+"/ivf-"+itoa(cfg[0])+"-"+itoa(cfg[1]), func(b *testing.B) {
				snap, _ := vector.Open(file)
				vector.SetIVF(cfg[0], cfg[1])
				defer vector.ForceANN(snap, 1000)()
				report(b, exact, snap, qs)
			})
		}
		for _, f := range []int{0, 2, 4, 8} {
			sub := "default"
			if f > 0 {
				sub = "int8/cands=" + itoa(10*f)
			}
			b.Run(name+"/"+sub, func(b *testing.B) {
				if f > 0 {
					defer func(rf, rm, am int) {
						vector.RescoreFactor, vector.RescoreMin, vector.ApproxMinVectors = rf, rm, am
					}(vector.RescoreFactor, vector.RescoreMin, vector.ApproxMinVectors)
					vector.RescoreFactor, vector.RescoreMin, vector.ApproxMinVectors = f, 0, 0
				}
				report(b, exact, snap, qs)
				if snap.Approximate() {
					b.ReportMetric(1, "approx")
				}
			})
		}
		// The approximate path whatever the index's size (the default takes
		// it at ApproxMinVectors), with fewer one-bit candidates too.
		for _, c := range []int{250, 1000} {
			b.Run(name+"/approx/bitcands="+itoa(c), func(b *testing.B) {
				defer func(am, bm int) { vector.ApproxMinVectors, vector.BitCandidatesMin = am, bm }(vector.ApproxMinVectors, vector.BitCandidatesMin)
				vector.ApproxMinVectors, vector.BitCandidatesMin = 1, c
				if !snap.Approximate() {
					b.Skip("no one-bit codes (a segment of an earlier build)")
				}
				report(b, exact, snap, qs)
			})
		}
	}
}

// report runs compare b.N times and reports its figures.
func report(b *testing.B, exact *vector.Index, s *vector.Snapshot, qs [][]float32) {
	var recall, same float64
	for i := 0; i < b.N; i++ {
		recall, same = compare(b, exact, s, qs)
	}
	b.ReportMetric(recall, "recall@10")
	b.ReportMetric(same, "top10-identical")
	b.ReportMetric(float64(len(qs)), "queries")
}

// compare returns recall@10 of s against exact and the fraction of
// queries whose top 10 is identical.
func compare(b *testing.B, exact *vector.Index, s *vector.Snapshot, qs [][]float32) (recall, same float64) {
	hit, all, eq := 0, 0, 0
	for _, q := range qs {
		want, err := exact.Search(q, 10, nil)
		if err != nil {
			b.Fatal(err)
		}
		got, err := s.Search(q, 10, nil)
		if err != nil {
			b.Fatal(err)
		}
		if slices.Equal(got, want) {
			eq++
		}
		for _, h := range want {
			all++
			if slices.ContainsFunc(got, func(g vector.Hit) bool { return g.Label == h.Label }) {
				hit++
			}
		}
	}
	return float64(hit) / float64(all), float64(eq) / float64(len(qs))
}

// evalQueries embeds every query text of the eval set in dir.
func evalQueries(b *testing.B, emb embed.Embedder, kind, dir string) [][]float32 {
	files, _ := filepath.Glob(filepath.Join(dir, "*.queries.tsv"))
	var in []embed.Input
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if _, text, ok := strings.Cut(sc.Text(), "\t"); ok && text != "" {
				in = append(in, embed.Input{Text: text, Kind: kind, Query: true})
			}
		}
		fh.Close()
	}
	var out [][]float32
	for lo := 0; lo < len(in); lo += 256 {
		vs, err := emb.Embed(context.Background(), in[lo:min(lo+256, len(in))])
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, vs...)
	}
	return out
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
