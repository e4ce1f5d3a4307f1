package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/eval"
)

var modeName = map[string]string{"lexical": "BM25-only", "vector": "vector-only", "hybrid": "hybrid (default)"}

func modeLabel(m string) string {
	if n := modeName[m]; n != "" {
		return n
	}
	return m
}

var halfName = map[string]string{eval.Tune: "tuning half", eval.Held: "held-out half"}

// printTable prints one markdown table: a row per set variant and mode, a
// column group (n, s@1, s@10, MRR, nDCG, cite, p50) per half.
func printTable(w io.Writer, rs []*result, halves []string) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| %-38s | %-16s |", "set (variant)", "mode")
	for _, h := range halves {
		fmt.Fprintf(w, " %-4s | %-4s | %-4s | %-4s | %-4s | %-4s | %-7s |", h, "s@1", "s@10", "MRR", "nDCG", "cite", "p50")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "|%s|%s|", strings.Repeat("-", 40), strings.Repeat("-", 18))
	for range halves {
		fmt.Fprint(w, "-----:|-----:|-----:|-----:|-----:|-----:|--------:|")
	}
	fmt.Fprintln(w)
	for _, r := range rs {
		fmt.Fprintf(w, "| %-38s | %-16s |", r.sv.label(), modeLabel(r.mode))
		for _, h := range halves {
			s := r.byHalf[h]
			fmt.Fprintf(w, " %4d | %s | %s | %s | %s | %s | %7s |", s.N, f2(s.Mean.Success1), f2(s.Mean.SuccessK),
				f2(s.Mean.MRR), f2(s.Mean.NDCG), r.cite[h].cell(), ms(s.P50))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "(columns per half: queries, success@1, success@10, MRR@10, nDCG@10, share of the first 10 hits whose snippet open_file finds in the cited span, search p50)\n")
}

// printCiteByType prints the citation check per doc type and mode, over
// every set and both halves.
func printCiteByType(w io.Writer, rs []*result) {
	type key struct{ typ, mode string }
	agg := map[key]*citeCount{}
	var types, modesSeen []string
	for _, r := range rs {
		if !contains(modesSeen, r.mode) {
			modesSeen = append(modesSeen, r.mode)
		}
		for t, c := range r.byType {
			k := key{t, r.mode}
			if agg[k] == nil {
				agg[k] = &citeCount{}
			}
			agg[k].ok += c.ok
			agg[k].n += c.n
			if !contains(types, t) {
				types = append(types, t)
			}
		}
	}
	sort.Strings(types)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| %-10s |", "cite by doc type")
	for _, m := range modesSeen {
		fmt.Fprintf(w, " %-20s |", modeLabel(m))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "|%s|", strings.Repeat("-", 18))
	for range modesSeen {
		fmt.Fprintf(w, "%s|", strings.Repeat("-", 22))
	}
	fmt.Fprintln(w)
	for _, t := range types {
		fmt.Fprintf(w, "| %-16s |", t)
		for _, m := range modesSeen {
			c := agg[key{t, m}]
			if c == nil {
				c = &citeCount{}
			}
			fmt.Fprintf(w, " %-20s |", fmt.Sprintf("%s (%d/%d)", f2(c.share()), c.ok, c.n))
		}
		fmt.Fprintln(w)
	}
}

// printSummary prints, per half, the mean MRR of each mode across the set
// variants, and hybrid − BM25 per set variant.
func printSummary(w io.Writer, rs []*result, halves []string) {
	fmt.Fprintln(w)
	mean := meanMRR(rs)
	for _, h := range halves {
		fmt.Fprintf(w, "mean MRR over %d set variants, %s:", len(setVariants(rs)), halfName[h])
		for _, m := range split(*modes) {
			fmt.Fprintf(w, "  %s %s", modeLabel(m), f2(mean[h][m]))
		}
		fmt.Fprintln(w)
	}
	diffs := hybridMinusBM25(rs)
	if len(diffs) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| %-40s |", "hybrid − BM25 (MRR)")
	for _, h := range halves {
		fmt.Fprintf(w, " %-13s |", h)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "|%s|", strings.Repeat("-", 42))
	for range halves {
		fmt.Fprintf(w, "%s|", strings.Repeat("-", 15))
	}
	fmt.Fprintln(w)
	for _, d := range diffs {
		fmt.Fprintf(w, "| %-40s |", d.label)
		for _, h := range halves {
			fmt.Fprintf(w, " %-13s |", signed(d.delta[h]))
		}
		fmt.Fprintln(w)
	}
}

func setVariants(rs []*result) []string {
	var out []string
	for _, r := range rs {
		if l := r.sv.label(); !contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// meanMRR is the unweighted mean over set variants of each mode's MRR, per half.
func meanMRR(rs []*result) map[string]map[string]float64 {
	sum := map[string]map[string]float64{}
	n := map[string]map[string]int{}
	for _, r := range rs {
		for h, s := range r.byHalf {
			if sum[h] == nil {
				sum[h], n[h] = map[string]float64{}, map[string]int{}
			}
			sum[h][r.mode] += s.Mean.MRR
			n[h][r.mode]++
		}
	}
	for h := range sum {
		for m := range sum[h] {
			sum[h][m] /= float64(n[h][m])
		}
	}
	return sum
}

type delta struct {
	label string
	delta map[string]float64
}

func hybridMinusBM25(rs []*result) []delta {
	by := map[string]map[string]*result{}
	for _, r := range rs {
		if by[r.sv.label()] == nil {
			by[r.sv.label()] = map[string]*result{}
		}
		by[r.sv.label()][r.mode] = r
	}
	var out []delta
	for _, l := range setVariants(rs) {
		hy, lx := by[l]["hybrid"], by[l]["lexical"]
		if hy == nil || lx == nil {
			continue
		}
		d := delta{label: l, delta: map[string]float64{}}
		for h, s := range hy.byHalf {
			d.delta[h] = s.Mean.MRR - lx.byHalf[h].Mean.MRR
		}
		out = append(out, d)
	}
	return out
}

type timing struct {
	name                        string
	materialize, index, queries time.Duration
	files, chunks               int64
}

func printTimings(w io.Writer, ts []timing, total time.Duration) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus variant | files | chunks | materialize | index | queries |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, t := range ts {
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s |\n", t.name, t.files, t.chunks,
			t.materialize.Round(100*time.Millisecond), t.index.Round(100*time.Millisecond), t.queries.Round(100*time.Millisecond))
	}
	fmt.Fprintf(w, "total %s\n", total.Round(time.Second))
}

// summaryJSON is the machine-readable form of the table, for comparing runs.
type summaryJSON struct {
	Embedder string                        `json:"embedder"`
	Go       string                        `json:"go"`
	Rows     []rowJSON                     `json:"rows"`
	MeanMRR  map[string]map[string]float64 `json:"mean_mrr"` // half → mode → MRR
	HybridVs map[string]map[string]float64 `json:"hybrid_minus_bm25_mrr"`
}

type rowJSON struct {
	Corpus  string  `json:"corpus"`
	Set     string  `json:"set"`
	Variant string  `json:"variant"`
	Mode    string  `json:"mode"`
	Half    string  `json:"half"`
	N       int     `json:"n"`
	S1      float64 `json:"s@1"`
	S10     float64 `json:"s@10"`
	MRR     float64 `json:"mrr@10"`
	NDCG    float64 `json:"ndcg@10"`
	Recall  float64 `json:"recall@10"`
	Cite    float64 `json:"cite"`
	P50ms   float64 `json:"p50_ms"`
}

func writeJSON(path, embID string, rs []*result, halves []string) error {
	out := summaryJSON{Embedder: embID, Go: goVersion(), MeanMRR: meanMRR(rs), HybridVs: map[string]map[string]float64{}}
	for _, r := range rs {
		for _, h := range halves {
			s, ok := r.byHalf[h]
			if !ok {
				continue
			}
			out.Rows = append(out.Rows, rowJSON{Corpus: r.sv.set.Corpus, Set: r.sv.set.Name, Variant: r.sv.variant, Mode: r.mode, Half: h,
				N: s.N, S1: s.Mean.Success1, S10: s.Mean.SuccessK, MRR: s.Mean.MRR, NDCG: s.Mean.NDCG, Recall: s.Mean.Recall,
				Cite: r.cite[h].share(), P50ms: float64(s.P50.Microseconds()) / 1000})
		}
	}
	for _, d := range hybridMinusBM25(rs) {
		out.HybridVs[d.label] = d.delta
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// cell is the cite column: the share, or "-" when nothing was checked
// (-cite=false).
func (c *citeCount) cell() string {
	if c == nil || c.n == 0 {
		return "  - "
	}
	return f2(c.share())
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func signed(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) + "ms"
}
