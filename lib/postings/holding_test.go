package postings

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestHoldingIsTheLiveRowsTokens checks Holding against the rows as
// written: over segments that replace and delete rows, an id is answered
// only when it has a live row, and the answer is whether that row's
// column, tokenized, holds every token of the term.
func TestHoldingIsTheLiveRowsTokens(t *testing.T) {
	words := []string{"ServeConn", "serve", "Conn", "Reader", "readers", "read_all", "Überblick", "ueberblick", "io", "Writer"}
	rng := rand.New(rand.NewSource(7))
	text := func() string {
		n := 1 + rng.Intn(4)
		var s string
		for range n {
			s += words[rng.Intn(len(words))] + " "
		}
		return s
	}
	live := map[int64]Doc{}
	var batches []batch
	for b := range 4 {
		var bt batch
		touched := map[int64]bool{}
		for range 30 {
			id := int64(1 + rng.Intn(60))
			if touched[id] {
				continue // one change per id and segment
			}
			touched[id] = true
			if b > 0 && rng.Intn(5) == 0 {
				bt.del = append(bt.del, id)
				delete(live, id)
				continue
			}
			d := Doc{ID: id, Kind: "code", Cols: [numCols]string{fmt.Sprintf("f%d.go", id), text(), text()}}
			bt.add = append(bt.add, d)
			live[id] = d
		}
		batches = append(batches, bt)
	}
	s := buildSnapshot(t, t.TempDir(), batches)
	var ids []int64
	for id := int64(0); id <= 62; id++ {
		ids = append(ids, id)
	}
	terms := append(slices.Clone(words), "serve conn", "running", "absent")
	for _, term := range terms {
		for _, cols := range []ColumnSet{1 << ColTitle, 1 << ColBody, AllColumns} {
			got, err := s.Holding(term, cols, ids)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Tokens(term)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				d, isLive := live[id]
				h, known := got[id]
				if known != isLive {
					t.Fatalf("Holding(%q) id %d: answered %v, live row %v", term, id, known, isLive)
				}
				if !isLive {
					continue
				}
				ref := false
				for c := range numCols {
					if !cols.Has(c) {
						continue
					}
					toks, err := Tokens(d.Cols[c])
					if err != nil {
						t.Fatal(err)
					}
					all := true
					for _, w := range want {
						all = all && slices.Contains(toks, w)
					}
					ref = ref || all
				}
				if h != ref {
					t.Fatalf("Holding(%q, cols %b) id %d = %v, row %q holds it: %v", term, cols, id, h, d.Cols, ref)
				}
			}
		}
	}
}
