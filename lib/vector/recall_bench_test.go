package vector

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// BenchmarkRecallReal measures recall@10 of int8 candidates + exact
// re-scoring against the exact scan on real embeddings: every index file
// matched by $DIR2MCP_BENCH_VECTORS (globs, comma-separated; default the
// `make eval` state dirs under $TMPDIR/dir2mcp-eval). Every 25th vector
// (at most 400) is held out as a query. It compares per-vector scales
// (what the format stores) with per-dimension scales, for several numbers
// of re-scored candidates; the sub-benchmark named "store" runs the real
// Snapshot.Search with the package defaults.
func BenchmarkRecallReal(b *testing.B) {
	pat := os.Getenv("DIR2MCP_BENCH_VECTORS")
	if pat == "" {
		pat = filepath.Join(os.TempDir(), "dir2mcp-eval", "state", "*-orig-*", "vectors_*.flat")
	}
	var files []string
	for _, p := range strings.Split(pat, ",") {
		m, _ := filepath.Glob(p)
		files = append(files, m...)
	}
	if len(files) == 0 {
		b.Skipf("no real vector files match %s (set DIR2MCP_BENCH_VECTORS)", pat)
	}
	for _, file := range files {
		s, err := Open(file)
		if err != nil || s.Len() < 2000 {
			continue
		}
		name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".flat")
		labels := s.Labels()
		var qs [][]float32
		base, _ := New(s.Model(), s.Dim())
		for i, l := range labels {
			v, _ := s.Vector(l)
			if i%25 == 0 && len(qs) < 400 {
				qs = append(qs, v)
				continue
			}
			must(b, base.Upsert(l, v))
		}
		for _, scheme := range []string{"per-vector", "per-dim"} {
			deq := dequantized(base, scheme == "per-dim")
			for _, c := range []int{20, 40} {
				b.Run(name+"/"+scheme+"/cands="+itoaTest(c), func(b *testing.B) {
					var r float64
					for i := 0; i < b.N; i++ {
						r = simulatedRecall(base, deq, qs, c, scheme == "per-dim")
					}
					b.ReportMetric(r, "recall@10")
				})
			}
		}
		b.Run(name+"/store", func(b *testing.B) {
			path := filepath.Join(b.TempDir(), FileName("text"))
			w, err := OpenWriter(path)
			must(b, err)
			must(b, w.Reset(base.Model(), base.Dim()))
			for i, l := range base.labels {
				must(b, w.Upsert(l, base.vecs[i*base.dim:(i+1)*base.dim]))
			}
			must(b, w.Flush())
			defer w.Close()
			var r float64
			for i := 0; i < b.N; i++ {
				r = recallAt10(b, base, w.snap, qs)
			}
			b.ReportMetric(r, "recall@10")
			b.ReportMetric(float64(len(qs)), "queries")
		})
	}
}

// quantCodes holds an index's codes dequantized to floats for one scheme.
type quantCodes struct {
	rows   []float32 // per row: scale·code (per-vector) or code (per-dim)
	dimSc  []float32 // per-dim scales, per-dim scheme only
	stride int
}

func dequantized(ix *Index, perDim bool) quantCodes {
	d, n := ix.dim, len(ix.labels)
	qc := quantCodes{rows: make([]float32, n*d), stride: d}
	if perDim {
		qc.dimSc = make([]float32, d)
		for i := range n * d {
			qc.dimSc[i%d] = max(qc.dimSc[i%d], abs32(ix.vecs[i])/127)
		}
		for i := range n * d {
			if s := qc.dimSc[i%d]; s > 0 {
				qc.rows[i] = float32(roundHalf(ix.vecs[i] / s))
			}
		}
		return qc
	}
	c := make([]int8, codeStride(d))
	for r := range n {
		s := quantize(ix.vecs[r*d:(r+1)*d], c)
		for j := range d {
			qc.rows[r*d+j] = s * float32(c[j])
		}
	}
	return qc
}

// simulatedRecall is recall@10 of taking the c best approximate scores and
// re-scoring them exactly, against the exact top 10.
func simulatedRecall(ix *Index, qc quantCodes, qs [][]float32, c int, perDim bool) float64 {
	d := ix.dim
	hit, all := 0, 0
	code := make([]int8, codeStride(d))
	for _, q := range qs {
		qq := q
		if perDim {
			qq = make([]float32, d)
			for j := range d {
				qq[j] = q[j] * qc.dimSc[j]
			}
		}
		s := quantize(qq, code)
		deq := make([]float32, d)
		for j := range d {
			deq[j] = s * float32(code[j])
		}
		approx := make([]Hit, len(ix.labels))
		for r := range ix.labels {
			approx[r] = Hit{Label: int64(r), Score: dotF32(deq, qc.rows[r*d:(r+1)*d])}
		}
		slices.SortFunc(approx, func(a, b Hit) int { return cmp.Compare(b.Score, a.Score) })
		cand := map[int64]bool{}
		for _, h := range approx[:min(c, len(approx))] {
			cand[ix.labels[h.Label]] = true
		}
		want, _ := ix.Search(q, 10, nil)
		for _, h := range want {
			all++
			if cand[h.Label] {
				hit++
			}
		}
	}
	return float64(hit) / float64(all)
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func roundHalf(x float32) float32 {
	if x < 0 {
		return float32(int32(x - 0.5))
	}
	return float32(int32(x + 0.5))
}
