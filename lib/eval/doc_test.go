package eval

import (
	"math"
	"testing"
)

func TestParseDocAndMatch(t *testing.T) {
	d, err := ParseDoc("a/b.py:L10-L20")
	if err != nil || d != (Doc{"a/b.py", 10, 20}) || d.String() != "a/b.py:L10-L20" {
		t.Fatalf("%+v %v", d, err)
	}
	if w, err := ParseDoc("x:y/z.md"); err != nil || w != (Doc{Path: "x:y/z.md"}) {
		t.Fatalf("colon in a whole-file path: %+v %v", w, err)
	}
	for _, bad := range []string{"a:L5-L4", "a:L0-L3", ""} {
		if _, err := ParseDoc(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	cases := []struct {
		h    Hit
		want bool
	}{
		{Hit{"a/b.py", 1, 9}, false},
		{Hit{"a/b.py", 1, 10}, true},
		{Hit{"a/b.py", 20, 30}, true},
		{Hit{"a/b.py", 21, 30}, false},
		{Hit{"a/b.py", 0, 0}, false}, // a page/time hit never matches a line range
		{Hit{"a/c.py", 12, 14}, false},
	}
	for _, c := range cases {
		if got := d.Matches(c.h); got != c.want {
			t.Errorf("%v matches %+v = %v", d, c.h, got)
		}
	}
	whole := Doc{Path: "a/b.py"}
	if !whole.Matches(Hit{"a/b.py", 0, 0}) || !whole.Matches(Hit{"a/b.py", 3, 4}) {
		t.Error("whole-file doc must match any hit on the file")
	}
	if !LineDocs(Qrels{"q": {"a:L1-L2": 1}}) || LineDocs(Qrels{"q": {"a": 1}}) {
		t.Error("LineDocs")
	}
}

func TestScoreHitsCountsEachDocOnce(t *testing.T) {
	rel := map[string]int{"f.go:L10-L20": 2, "g.go:L1-L5": 1}
	hits := []Hit{{"x.go", 1, 3}, {"f.go", 12, 13}, {"f.go", 15, 18}, {"g.go", 4, 9}}
	s := ScoreHits(hits, rel)
	if s.Success1 != 0 || s.SuccessK != 1 || !near(s.MRR, 0.5) || !near(s.Recall, 1) {
		t.Errorf("%+v", s)
	}
	// The second f.go hit earns nothing: DCG = 3/log2(3) + 1/log2(5).
	want := (3/math.Log2(3) + 1/math.Log2(5)) / (3 + 1/math.Log2(3))
	if !near(s.NDCG, want) {
		t.Errorf("nDCG %v, want %v", s.NDCG, want)
	}
	// A hit overlapping no judged range scores nothing.
	if s := ScoreHits([]Hit{{"f.go", 21, 40}}, rel); s.SuccessK != 0 || s.NDCG != 0 {
		t.Errorf("%+v", s)
	}
}

func TestHalfIsStableAndSplits(t *testing.T) {
	n := map[string]int{}
	for i := 0; i < 1000; i++ {
		q := "q" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		h := Half(q)
		if h != Half(q) {
			t.Fatal("unstable")
		}
		n[h]++
	}
	if n[Tune] < 400 || n[Held] < 400 {
		t.Errorf("split %v", n)
	}
	// sha256("sym00007") starts with 0x04 (even): tuning half.
	if Half("sym00007") != Tune {
		t.Errorf("sym00007 in %s", Half("sym00007"))
	}
}
