package vector

import (
	"math"
	"slices"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestNewRejectsBadShape(t *testing.T) {
	for _, dim := range []int{0, -1, MaxDim + 1} {
		if _, err := New("m", dim); errcode.Of(err) != errcode.InvalidField {
			t.Errorf("New(dim=%d) = %v, want INVALID_FIELD", dim, err)
		}
	}
	long := string(make([]byte, MaxModelLen+1))
	if _, err := New(long, 4); errcode.Of(err) != errcode.InvalidField {
		t.Errorf("New(long model) = %v, want INVALID_FIELD", err)
	}
}

func TestUpsertReplaces(t *testing.T) {
	ix, _ := New("m", 3)
	must(t, ix.Upsert(7, []float32{1, 0, 0}))
	must(t, ix.Upsert(8, []float32{0, 1, 0}))
	must(t, ix.Upsert(7, []float32{0, 0, 1}))
	if ix.Len() != 2 {
		t.Fatalf("Len = %d after replacing, want 2", ix.Len())
	}
	v, ok := ix.Vector(7)
	if !ok || !slices.Equal(v, []float32{0, 0, 1}) {
		t.Fatalf("Vector(7) = %v, %v; want the replacement", v, ok)
	}
	hits, err := ix.Search([]float32{0, 0, 1}, 1, nil)
	must(t, err)
	if len(hits) != 1 || hits[0].Label != 7 || hits[0].Score != 1 {
		t.Fatalf("Search = %v, want label 7 with score 1", hits)
	}
	// The stored vector is a copy.
	in := []float32{1, 1, 0}
	must(t, ix.Upsert(9, in))
	in[0] = 5
	if v, _ := ix.Vector(9); v[0] != 1 {
		t.Fatal("Upsert kept a reference to the caller's slice")
	}
}

func TestUpsertRejectsBadVectors(t *testing.T) {
	ix, _ := New("m", 3)
	for _, v := range [][]float32{
		{1, 0},
		{1, 0, 0, 0},
		{float32(math.NaN()), 0, 0},
		{0, float32(math.Inf(1)), 0},
	} {
		err := ix.Upsert(1, v)
		if errcode.Of(err) != errcode.InvalidField {
			t.Errorf("Upsert(%v) = %v, want INVALID_FIELD", v, err)
		}
	}
	if ix.Len() != 0 {
		t.Fatalf("rejected vectors were stored: Len = %d", ix.Len())
	}
}

func TestDeleteCompacts(t *testing.T) {
	ix, vecs := randomIndex(t, 1, 50, 16)
	gone := []int64{1000, 1049, 1025, 1025, 424242}
	if n := ix.Delete(gone...); n != 3 {
		t.Fatalf("Delete removed %d, want 3 (duplicates and unknown labels ignored)", n)
	}
	if ix.Len() != 47 {
		t.Fatalf("Len = %d, want 47", ix.Len())
	}
	for _, l := range gone {
		if ix.Has(l) {
			t.Errorf("Has(%d) after Delete", l)
		}
	}
	// Every surviving label still maps to its own vector.
	for l, want := range vecs {
		if slices.Contains(gone, l) {
			continue
		}
		got, ok := ix.Vector(l)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("label %d lost or got the wrong vector after compaction", l)
		}
		hits, err := ix.Search(want, 1, nil)
		must(t, err)
		if hits[0].Label != l {
			t.Fatalf("searching label %d's own vector found %d", l, hits[0].Label)
		}
	}
	// Deleting everything leaves an empty, usable index.
	ix.Delete(ix.Labels()...)
	if ix.Len() != 0 {
		t.Fatalf("Len = %d after deleting all", ix.Len())
	}
	must(t, ix.Upsert(5, vecs[1001]))
	if !ix.Has(5) || ix.Len() != 1 {
		t.Fatal("index unusable after deleting everything")
	}
}

func TestNilIndexIsEmpty(t *testing.T) {
	var ix *Index
	if ix.Len() != 0 || ix.Dim() != 0 || ix.Model() != "" || ix.Has(1) || ix.Labels() != nil {
		t.Fatal("nil index is not empty")
	}
	hits, err := ix.Search([]float32{1}, 10, nil)
	if err != nil || hits != nil {
		t.Fatalf("nil Search = %v, %v", hits, err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
