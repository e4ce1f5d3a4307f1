package vector

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// topSet keeps exactly the hits the heap keeps, whatever the order they
// come in, with tied scores, and for every k up to more than there are.
func TestTopSetKeepsTheHeapsHits(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 300; round++ {
		n := rng.Intn(3000)
		levels := 1 + rng.Intn(50) // few distinct scores: many ties
		if round%3 == 0 {
			levels = 1 << 20
		}
		hits := make([]Hit, n)
		for i, l := range rng.Perm(n) {
			hits[i] = Hit{Label: int64(l), Score: float32(rng.Intn(levels)) / float32(levels)}
		}
		if round%5 == 1 { // ascending: every hit would enter a heap
			slices.SortFunc(hits, func(a, b Hit) int { return bestFirst(b, a) })
		}
		k := 1 + rng.Intn(700)
		heap := topK{k: k}
		set := newTopSet(k)
		for _, h := range hits {
			if heap.admits(h.Score, h.Label) {
				heap.push(h)
			}
			if set.admits(h.Score, h.Label) {
				set.push(h)
			}
		}
		want := heap.sorted()
		got := slices.Clone(set.best())
		slices.SortFunc(got, bestFirst)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d (n %d, k %d): topSet kept %d hits, the heap %d; first difference at %d",
				round, n, k, len(got), len(want), firstDiff(got, want))
		}
	}
}

// bestFirst orders hits best first by "better" (a slices.SortFunc
// comparison).
func bestFirst(a, b Hit) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

func firstDiff(a, b []Hit) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestNthLargest(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for round := range 500 {
		n := 1 + rng.Intn(3000)
		a := make([]float32, n)
		for i := range a {
			a[i] = float32(rng.Intn(1 + round%40))
		}
		want := slices.Clone(a)
		slices.Sort(want)
		slices.Reverse(want)
		m := rng.Intn(n)
		if round%2 == 0 {
			m = rng.Intn(n/64 + 1) // the heap's range
		}
		if got := nthLargest(a, m); got != want[m] {
			t.Fatalf("round %d: nthLargest(%d) = %v, want %v", round, m, got, want[m])
		}
	}
}

// selectBest keeps the k best hits by "better" for any scores: negative,
// both zeros (equal, so ordered by label), many ties, every k.
func TestSelectBestMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for round := range 400 {
		n := 1 + rng.Intn(4000)
		levels := 1 + rng.Intn(40)
		if round%2 == 0 {
			levels = 1 << 22
		}
		hits := make([]Hit, n)
		for i, l := range rng.Perm(n) {
			s := float32(rng.Intn(2*levels)-levels) / float32(levels)
			if s == 0 && rng.Intn(2) == 0 {
				s = float32(math.Copysign(0, -1))
			}
			hits[i] = Hit{Label: int64(l), Score: s}
		}
		k := 1 + rng.Intn(n)
		want := slices.Clone(hits)
		slices.SortFunc(want, bestFirst)
		selectBest(hits, k)
		got := slices.Clone(hits[:k])
		slices.SortFunc(got, bestFirst)
		if !slices.Equal(got, want[:k]) {
			t.Fatalf("round %d (n %d, k %d, %d levels): first difference at %d", round, n, k, levels, firstDiff(got, want[:k]))
		}
	}
}
