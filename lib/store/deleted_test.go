package store

import (
	"context"
	"slices"
	"testing"
)

// TestDeletedChunksOfAnyStatus: the tombstoned chunks of a kind are found
// and purged whatever their embedding status (the query seeks each status
// and each range between them), live chunks and other kinds are kept.
func TestDeletedChunksOfAnyStatus(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	statuses := []string{"pending", "ok", "error", "", "aaa", "f", "p", "zzz"}
	var texts []string
	for _, st := range statuses {
		texts = append(texts, "dead "+st, "live "+st)
	}
	res := put(t, s, "a.go", "rep1", texts...)
	var dead []int64
	err := s.Update(ctx, func(tx *Tx) error {
		for i, c := range res.Added {
			st := statuses[i/2]
			if _, err := tx.tx.Exec("UPDATE chunks SET embedding_status = ? WHERE chunk_id = ?", st, c.ChunkID); err != nil {
				return err
			}
			if i%2 == 0 {
				dead = append(dead, c.ChunkID)
			}
		}
		return tx.tombstoneChunks(dead)
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.DeletedChunkIDs(ctx, "code")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, dead) {
		t.Fatalf("DeletedChunkIDs(code) = %v, want %v", got, dead)
	}
	if other, err := s.DeletedChunkIDs(ctx, "text"); err != nil || len(other) != 0 {
		t.Fatalf("DeletedChunkIDs(text) = %v, %v; want none", other, err)
	}
	var purged int64
	if err := s.Update(ctx, func(tx *Tx) (err error) { purged, err = tx.PurgeDeletedChunks("code"); return err }); err != nil {
		t.Fatal(err)
	}
	var rows, spans int
	s.rd.QueryRow("SELECT count(*) FROM chunks").Scan(&rows)
	s.rd.QueryRow("SELECT count(*) FROM spans").Scan(&spans)
	if purged != int64(len(dead)) || rows != len(texts)-len(dead) || spans != rows {
		t.Fatalf("purged %d (want %d); %d chunk rows and %d spans left, want %d", purged, len(dead), rows, spans, len(texts)-len(dead))
	}
}
