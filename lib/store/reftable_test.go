package store

import (
	"context"
	"errors"
	"maps"
	"testing"
)

// TestRefTableIsChunkRefsOfEverything: the whole index's refs read at
// once are exactly what ChunkRefs gives for every chunk id, live or not
// (a tombstoned chunk, the chunks of a deleted document left unmarked,
// ids outside the table), and come with the generation they were read at.
func TestRefTableIsChunkRefsOfEverything(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	a := put(t, s, "a.go", "rep-a", "one", "two", "three")
	b := put(t, s, "docs/b.go", "rep-b", "four", "five")
	c := put(t, s, "c.go", "rep-c", "six")
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.tombstoneChunks([]int64{a.Added[1].ChunkID}); err != nil {
			return err
		}
		// A deleted document whose chunks are not marked: its document
		// row alone must hide them.
		_, err := tx.tx.Exec("UPDATE documents SET deleted = 1 WHERE rel_path = 'c.go'")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, r := range []RepResult{a, b, c} {
		for _, ch := range r.Added {
			ids = append(ids, ch.ChunkID)
		}
	}
	want, err := s.ChunkRefs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || want[b.Added[0].ChunkID].RelPath != "docs/b.go" {
		t.Fatalf("ChunkRefs = %v: the fixture is not what the test needs", want)
	}
	tab, err := s.RefTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]ChunkRef{}
	for _, id := range append(ids, 0, -1, ids[len(ids)-1]+1) {
		if r, ok := tab.Ref(id); ok {
			got[id] = r
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("RefTable refs = %v\nwant %v", got, want)
	}
	if g, _ := s.Generation(ctx); tab.Generation() != g {
		t.Errorf("generation %d, want %d", tab.Generation(), g)
	}
}

// TestRefTableRefusesSparseIDs: chunk ids spread far beyond the number of
// chunks (a store re-indexed many times) make no table: ErrNoRefTable,
// so the caller reads refs chunk by chunk.
func TestRefTableRefusesSparseIDs(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	put(t, s, "a.go", "rep-a", "one", "two")
	err := s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.Exec(`INSERT INTO chunks(chunk_id, rep_id, doc_id, ordinal, text, text_hash, index_kind)
SELECT ?, rep_id, doc_id, 99, 'far', 'h:far', index_kind FROM chunks LIMIT 1`, maxRefSpread*1024+10)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if tab, err := s.RefTable(ctx); !errors.Is(err, ErrNoRefTable) {
		t.Fatalf("RefTable over ids 1..%d of 3 chunks = %v, %v; want ErrNoRefTable", maxRefSpread*1024+10, tab, err)
	}
}
