package corpora

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Set is one query set over a corpus: testdata/eval/<Corpus>/<Stem>.queries.tsv
// and .qrels, run on each of Variants.
type Set struct {
	Corpus, Name string
	Stem         string   // file stem (default Name)
	Variants     []string // corpus variants it is scored on
	Query        string   // what a query is (README)
	Relevant     string   // what counts as relevant (README)
	// gen derives the candidate items from the orig corpus; nil for sets
	// made elsewhere (gostd by scripts/gostd, hand-written sets).
	gen    func(root string) ([]Item, error)
	prefix string // qid prefix
	max    int    // sample size (0 = all)
}

// File stem of the set's query and qrels files.
func (s *Set) FileStem() string {
	if s.Stem != "" {
		return s.Stem
	}
	return s.Name
}

// Generated reports whether scripts/evalsets writes the set.
func (s *Set) Generated() bool { return s.gen != nil }

// Item is one query with its judged documents (qrels DOCs → grade).
type Item struct {
	Key   string // stable identity (qid and sampling derive from it)
	Query string
	Rel   map[string]int
}

// QID is the item's query id.
func (s *Set) qid(key string) string {
	sum := sha256.Sum256([]byte(s.Corpus + "/" + s.Name + "/" + key))
	return s.prefix + hex.EncodeToString(sum[:5])
}

// Generate derives the set from the orig corpus at root: the candidates,
// keeping only queries whose normalised text is unique, and a sample of at
// most max of them chosen by hash (deterministic). It returns the queries
// and qrels file contents.
func (s *Set) Generate(root string) (queries, qrels string, n int, err error) {
	items, err := s.gen(root)
	if err != nil {
		return "", "", 0, err
	}
	count := map[string]int{}
	for _, it := range items {
		count[normQuery(it.Query)]++
	}
	type entry struct {
		qid string
		it  Item
	}
	var keep []entry
	seen := map[string]bool{}
	for _, it := range items {
		if count[normQuery(it.Query)] != 1 || len(it.Rel) == 0 {
			continue
		}
		q := s.qid(it.Key)
		if seen[q] {
			return "", "", 0, fmt.Errorf("%s: qid collision on %s", s.Name, q)
		}
		seen[q] = true
		keep = append(keep, entry{q, it})
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].qid < keep[j].qid })
	if s.max > 0 && len(keep) > s.max {
		keep = keep[:s.max]
	}
	var qb, rb strings.Builder
	for _, e := range keep {
		fmt.Fprintf(&qb, "%s\t%s\n", e.qid, e.it.Query)
		docs := make([]string, 0, len(e.it.Rel))
		for d := range e.it.Rel {
			docs = append(docs, d)
		}
		sort.Strings(docs)
		for _, d := range docs {
			fmt.Fprintf(&rb, "%s 0 %s %d\n", e.qid, d, e.it.Rel[d])
		}
	}
	return qb.String(), rb.String(), len(keep), nil
}

func normQuery(q string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.Trim(q, " .?")), " "))
}

// oneLine collapses whitespace; queries are single TSV fields.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\t", " ")), " ")
}

// lineDoc is the qrels DOC of lines a..b (1-based, inclusive) of rel.
func lineDoc(rel string, a, b int) string { return fmt.Sprintf("%s:L%d-L%d", rel, a, b) }
