package store

import (
	"context"
	"testing"
)

// TestFTSHashSize: a writable store sets the full-text index's hashsize,
// and a store opened again indexes and finds text.
func TestFTSHashSize(t *testing.T) {
	ctx := context.Background()
	s, dir := openTest(t)
	var v string
	if err := s.rd.QueryRow("SELECT v FROM chunks_fts_config WHERE k = 'hashsize'").Scan(&v); err != nil || v != "8388608" {
		t.Fatalf("hashsize = %q, %v; want 8388608", v, err)
	}
	s.Close()
	s2, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	put(t, s2, "a.go", "rep1", "alpha one")
	if got := search(t, s2, "alpha"); len(got) != 1 {
		t.Fatalf("search alpha = %v", got)
	}
}
