package eval

import (
	"math"
	"sort"
	"time"
)

// Scores are one query's metrics at cutoff K.
type Scores struct {
	Success1, SuccessK, MRR, NDCG, Recall float64
}

// K is the metric cutoff.
const K = 10

// Score evaluates a ranked list of distinct files against the relevant
// set (grades > 0). Only the first K files count.
func Score(ranked []string, rel map[string]int) Scores {
	hits := make([]Hit, len(ranked))
	for i, p := range ranked {
		hits[i] = Hit{Path: p}
	}
	return ScoreHits(hits, rel)
}

// ScoreHits evaluates ranked hits against judged documents (qrels DOCs:
// whole files or line ranges; see Doc.Matches). Only the first K hits count.
// A hit earns the grade of the best judged document it matches that no
// earlier hit matched, so each document counts once; success and MRR take
// the first hit matching any judged document. Unparsable DOCs never match.
func ScoreHits(hits []Hit, rel map[string]int) Scores {
	var s Scores
	if len(rel) == 0 {
		return s
	}
	if len(hits) > K {
		hits = hits[:K]
	}
	docs := make([]Doc, 0, len(rel))
	grades := make([]int, 0, len(rel))
	for k, g := range rel {
		grades = append(grades, g)
		if d, err := ParseDoc(k); err == nil {
			docs = append(docs, d)
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].String() < docs[j].String() })
	counted := map[Doc]bool{}
	dcg, found, first := 0.0, 0, -1
	for i, h := range hits {
		best, bestG := Doc{}, 0
		any := false
		for _, d := range docs {
			if !d.Matches(h) {
				continue
			}
			any = true
			if g := rel[d.String()]; !counted[d] && g > bestG {
				best, bestG = d, g
			}
		}
		if any && first < 0 {
			first = i
		}
		if bestG == 0 {
			continue
		}
		counted[best] = true
		found++
		dcg += (math.Pow(2, float64(bestG)) - 1) / math.Log2(float64(i+2))
	}
	if first >= 0 {
		s.MRR = 1 / float64(first+1)
		s.SuccessK = 1
		if first == 0 {
			s.Success1 = 1
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))
	idcg := 0.0
	for i, g := range grades {
		if i == K {
			break
		}
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	if idcg > 0 {
		s.NDCG = dcg / idcg
	}
	s.Recall = float64(found) / float64(min(len(rel), K))
	return s
}

// Summary aggregates per-query scores and latencies.
type Summary struct {
	N        int
	Mean     Scores
	P50, P99 time.Duration
}

// Summarize averages scores and takes latency percentiles.
func Summarize(scores []Scores, lat []time.Duration) Summary {
	var sum Summary
	sum.N = len(scores)
	for _, s := range scores {
		sum.Mean.Success1 += s.Success1
		sum.Mean.SuccessK += s.SuccessK
		sum.Mean.MRR += s.MRR
		sum.Mean.NDCG += s.NDCG
		sum.Mean.Recall += s.Recall
	}
	if n := float64(len(scores)); n > 0 {
		sum.Mean.Success1 /= n
		sum.Mean.SuccessK /= n
		sum.Mean.MRR /= n
		sum.Mean.NDCG /= n
		sum.Mean.Recall /= n
	}
	if len(lat) > 0 {
		l := append([]time.Duration{}, lat...)
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		sum.P50 = l[(len(l)-1)*50/100]
		sum.P99 = l[(len(l)-1)*99/100]
	}
	return sum
}

// Distinct returns paths in first-seen order without repeats (chunk hits
// to a file ranking).
func Distinct(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
