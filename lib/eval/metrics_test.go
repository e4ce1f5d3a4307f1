package eval

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestScore(t *testing.T) {
	rel := map[string]int{"a": 2, "b": 1}
	s := Score([]string{"x", "a", "y", "b"}, rel)
	if s.Success1 != 0 || s.SuccessK != 1 || !near(s.MRR, 0.5) || !near(s.Recall, 1) {
		t.Errorf("%+v", s)
	}
	// DCG = 3/log2(3) + 1/log2(5); IDCG = 3/log2(2) + 1/log2(3)
	want := (3/math.Log2(3) + 1/math.Log2(5)) / (3 + 1/math.Log2(3))
	if !near(s.NDCG, want) {
		t.Errorf("nDCG %v, want %v", s.NDCG, want)
	}
	if s := Score([]string{"a"}, rel); s.Success1 != 1 || !near(s.MRR, 1) || !near(s.Recall, 0.5) {
		t.Errorf("%+v", s)
	}
	// Beyond the cutoff nothing counts.
	long := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"}
	if s := Score(long, rel); s.SuccessK != 0 || s.MRR != 0 {
		t.Errorf("%+v", s)
	}
	if s := Score([]string{"a"}, nil); s != (Scores{}) {
		t.Errorf("no judgements: %+v", s)
	}
}

func TestSummarizeAndDistinct(t *testing.T) {
	sum := Summarize([]Scores{{Success1: 1, MRR: 1}, {MRR: 0.5}}, []time.Duration{3, 1, 2})
	if sum.N != 2 || !near(sum.Mean.Success1, 0.5) || !near(sum.Mean.MRR, 0.75) || sum.P50 != 2 {
		t.Errorf("%+v", sum)
	}
	if d := Distinct([]string{"a", "b", "a", "c", "b"}); len(d) != 3 || d[2] != "c" {
		t.Errorf("%v", d)
	}
}

func TestReadTREC(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "q.tsv"), []byte("q1\tfirst query\nq2\tsecond\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "qrels"), []byte("q1 0 a.go 2\nq1 0 b.go 1\nq2 0 c.go 0\n"), 0o644)
	qs, err := ReadQueries(filepath.Join(dir, "q.tsv"))
	if err != nil || len(qs) != 2 || qs[1].Text != "second" {
		t.Fatalf("%+v %v", qs, err)
	}
	qr, err := ReadQrels(filepath.Join(dir, "qrels"))
	if err != nil || qr["q1"]["a.go"] != 2 || len(qr["q2"]) != 0 {
		t.Fatalf("%+v %v", qr, err)
	}
	os.WriteFile(filepath.Join(dir, "bad"), []byte("q1 a.go 2\n"), 0o644)
	if _, err := ReadQrels(filepath.Join(dir, "bad")); err == nil {
		t.Error("malformed qrels accepted")
	}
}
