package retrieve

import (
	"math"
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/postings"
)

// Term selection. An ORed query scores every row holding any of its
// terms, and a few common words ("returns", "file") match most of a code
// base. So rows must contain one of the query's rarer terms: terms are taken
// rarest first while their document frequencies add up to at most
// rowBudget (always at least the rarest one). All terms still count in the
// BM25 score of those rows.
const rowBudget = 4000

// maxScoredShare drops from the scored expression terms found in more than
// this share of chunks: their BM25 weight is near zero, yet weighing them
// walks their long postings.
const maxScoredShare = 0.3

// lexicalMatch builds the keyword expression for a query's terms. The scored
// part ORs every term that carries weight, so BM25 weighs all of them; when
// the query has rarer terms, rows must also contain one of those (see
// rowBudget): a row holding only common words is not worth scoring, and
// scoring it is what makes an ORed query slow. It also returns each term's
// weight for snippet focus, its inverse document frequency by stem (nil
// for a one-term query).
func (e *Engine) lexicalMatch(kw *postings.Snapshot, terms []string) (lexical.Expr, map[string]float64) {
	if len(terms) <= 1 {
		return lexical.AnyOf(terms), nil
	}
	dfs := make(map[string]int64, len(terms))
	for _, t := range terms {
		n, err := kw.DocFreq(t, postings.AllColumns)
		if err != nil {
			return lexical.AnyOf(terms), nil
		}
		dfs[t] = n
	}
	total := kw.Rows()
	weight := make(map[string]float64, len(terms))
	for _, t := range terms {
		idf := math.Log(1 + float64(total+1)/float64(dfs[t]+1))
		if s := lexical.Stem(t); idf > weight[s] {
			weight[s] = idf
		}
	}
	scored := make([]string, 0, len(terms))
	for _, t := range terms {
		if total == 0 || float64(dfs[t]) <= maxScoredShare*float64(total) {
			scored = append(scored, t)
		}
	}
	if len(scored) == 0 {
		scored = terms
	}
	sel := selectTerms(terms, dfs)
	all := lexical.AnyOf(scored)
	if len(sel) == 0 || sameTerms(sel, scored) {
		return all, weight
	}
	return lexical.Both(lexical.AnyOf(sel), all), weight
}

func sameTerms(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	set := map[string]bool{}
	for _, t := range a {
		set[t] = true
	}
	for _, t := range b {
		if !set[t] {
			return false
		}
	}
	return true
}

// selectTerms returns the terms that bound the rows to score (see
// rowBudget), rarest first; terms absent from the index are dropped.
func selectTerms(terms []string, dfs map[string]int64) []string {
	present := make([]string, 0, len(terms))
	for _, t := range terms {
		if dfs[t] > 0 {
			present = append(present, t)
		}
	}
	sort.SliceStable(present, func(i, j int) bool { return dfs[present[i]] < dfs[present[j]] })
	var keep []string
	var rows int64
	for _, t := range present {
		if len(keep) > 0 && rows+dfs[t] > rowBudget {
			break
		}
		keep = append(keep, t)
		rows += dfs[t]
	}
	return keep
}
