package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"reflect"
	"testing"
)

// Counts are counted once per generation and kept in the settings table:
// a store reopened over unchanged content (a restart) reads them back, a
// write by any connection makes them counted again, and storing them
// changes neither the generation nor the totals.
func TestCountsAreKeptPerGeneration(t *testing.T) {
	ctx := context.Background()
	s, dir := openTest(t)
	put(t, s, "a.go", "r1", "alpha", "beta")
	first, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Documents != 1 || first.Chunks != 2 {
		t.Fatalf("counts %+v", first)
	}
	gen, _ := s.Generation(ctx)
	v, at, now, ok, err := s.Derived(ctx, keyCounts)
	if err != nil || !ok || at != gen || now != gen || v == "" {
		t.Fatalf("derived counts %q at %d (now %d, generation %d), ok %v, %v", v, at, now, gen, ok, err)
	}

	// Reopened (a restart): the totals come from the settings row. A
	// forged row at the current generation proves they are read, not
	// counted.
	s.Close()
	s2, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	forged := first.clone()
	forged.Chunks = 99
	b, _ := json.Marshal(forged)
	if err := s2.SetDerived(ctx, keyCounts, gen, string(b)); err != nil {
		t.Fatal(err)
	}
	if g, _ := s2.Generation(ctx); g != gen {
		t.Fatalf("storing a derived value moved the generation %d -> %d", gen, g)
	}
	if c, err := s2.Counts(ctx); err != nil || c.Chunks != 99 {
		t.Fatalf("counts of an unchanged store were counted again: %+v %v", c, err)
	}

	// A write through another connection (another process) bumps the
	// generation: counted again.
	db, err := sql.Open(driverName, dsn(s2.path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other := &Store{path: s2.path, wr: db, rd: db}
	put(t, other, "b.go", "r2", "gamma")
	c, err := s2.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Documents != 2 || c.Chunks != 3 {
		t.Fatalf("counts after another writer: %+v", c)
	}
	// And a read-only store over the same file agrees.
	ro, err := Open(ctx, dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if rc, err := ro.Counts(ctx); err != nil || !reflect.DeepEqual(rc, c) {
		t.Fatalf("read-only store counts %+v (%v), want %+v", rc, err, c)
	}
}

// A derived value under an unknown format (or of another generation) is
// not trusted.
func TestDerivedValueMismatchIsRecounted(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	put(t, s, "a.go", "r1", "alpha")
	gen, _ := s.Generation(ctx)
	if err := s.SetDerived(ctx, keyCounts, gen-1, `{"Documents":7}`); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Counts(ctx); c.Documents != 1 {
		t.Fatalf("stale derived counts used: %+v", c)
	}
	if err := s.SetDerived(ctx, "counts", gen, "x"); err == nil {
		t.Error("a derived key without the prefix was stored")
	}
}
