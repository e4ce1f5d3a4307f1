// Package eval scores retrieval against TREC/BEIR-style judgements:
// queries (qid TAB text), qrels (qid 0 doc grade, doc a file or a line
// range "path:L<start>-L<end>"), and ranked hits or file lists,
// giving success@k, MRR@k, nDCG@k and recall@k.
package eval

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Query is one evaluation query.
type Query struct {
	ID   string
	Text string
}

// Qrels maps a query id to its relevant documents and their grades (> 0).
type Qrels map[string]map[string]int

// ReadQueries reads a TSV file of "qid<TAB>query text" lines.
func ReadQueries(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []Query
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			continue
		}
		id, text, ok := strings.Cut(line, "\t")
		if !ok || id == "" || strings.TrimSpace(text) == "" {
			return nil, fmt.Errorf("%s:%d: want \"qid<TAB>query\"", path, n)
		}
		qs = append(qs, Query{ID: id, Text: text})
	}
	return qs, sc.Err()
}

// ReadQrels reads TREC qrels: "qid iteration doc grade" per line; grades
// ≤ 0 are not relevant.
func ReadQrels(path string) (Qrels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	q := Qrels{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 4 {
			return nil, fmt.Errorf("%s:%d: want \"qid iter doc grade\"", path, n)
		}
		g, err := strconv.Atoi(fields[3])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: grade %q: %v", path, n, fields[3], err)
		}
		if g <= 0 {
			continue
		}
		if q[fields[0]] == nil {
			q[fields[0]] = map[string]int{}
		}
		q[fields[0]][fields[2]] = g
	}
	return q, sc.Err()
}
