package retrieve

import (
	"context"
	"maps"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// refsStore returns a store holding two documents of two chunks each and
// their chunk ids.
func refsStore(t *testing.T) (*store.Store, []int64) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var ids []int64
	for _, rel := range []string{"a.go", "b.md"} {
		err := st.Update(ctx, func(tx *store.Tx) error {
			d := record.NewDocument()
			d.RelPath, d.DocType, d.SizeBytes, d.MtimeNs, d.ContentHash = rel, record.DocCode, 10, 1, "sha256:"+rel
			d.Status, d.Change = record.StatusOK, record.ChangeNew
			id, err := tx.UpsertDocument(d, "")
			if err != nil {
				return err
			}
			var in []store.ChunkInput
			for i, text := range []string{rel + " one", rel + " two"} {
				in = append(in, store.ChunkInput{Text: text, TextHash: "h:" + text, IndexKind: record.KindCode, Span: record.Lines(i+1, i+1)})
			}
			res, err := tx.ReplaceRepresentation(store.DocRef{DocID: id, RelPath: rel, DocType: record.DocCode},
				store.RepInput{Type: record.RepRawText, Hash: "rep:" + rel}, in)
			for _, c := range res.Added {
				ids = append(ids, c.ChunkID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return st, ids
}

// warmedEngine returns an engine over refsStore's store with its refs
// warmed (WarmRefs), the store, and the chunk ids.
func warmedEngine(t *testing.T) (*Engine, *store.Store, []int64) {
	t.Helper()
	st, ids := refsStore(t)
	e := &Engine{Store: st}
	if err := e.WarmRefs(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e, st, ids
}

// TestRefCacheFollowsGenerations: refs warmed at once are dropped when the
// index changes (a deleted file's chunks are not live any more), a search
// that began before the change reads the store without replacing the
// newer cache, and a warm-up read before a change never replaces the refs
// of a newer generation.
func TestRefCacheFollowsGenerations(t *testing.T) {
	ctx := context.Background()
	e, st, ids := warmedEngine(t)
	g0, _ := st.Generation(ctx)
	if e.refCache.table == nil || e.refCache.gen != g0 {
		t.Fatalf("after WarmRefs: table %v, generation %d (store %d)", e.refCache.table != nil, e.refCache.gen, g0)
	}
	got, err := e.refs(ctx, g0, ids)
	want, _ := st.ChunkRefs(ctx, ids)
	if err != nil || !maps.Equal(got, want) || len(got) != 4 {
		t.Fatalf("warmed refs = %v, %v; want %v", got, err, want)
	}

	if err := st.Update(ctx, func(tx *store.Tx) error { _, err := tx.TombstoneDocument("a.go"); return err }); err != nil {
		t.Fatal(err)
	}
	g1, _ := st.Generation(ctx)
	got, err = e.refs(ctx, g1, ids)
	if err != nil || len(got) != 2 || got[ids[2]].RelPath != "b.md" || got[ids[3]].RelPath != "b.md" {
		t.Fatalf("refs after a.go was deleted = %v, %v; want b.md's two chunks", got, err)
	}

	// The cache is at g1 again, full.
	if err := e.WarmRefs(ctx); err != nil {
		t.Fatal(err)
	}
	got, err = e.refs(ctx, g0, ids)
	if err != nil || len(got) != 2 {
		t.Fatalf("a search of the older generation got %v, %v; want the store's two live refs", got, err)
	}
	if e.refCache.table == nil || e.refCache.gen != g1 {
		t.Fatalf("a search of the older generation replaced the cache (table %v, generation %d, want %d)", e.refCache.table != nil, e.refCache.gen, g1)
	}

	// A warm-up that read generation g1 after the cache moved on.
	e.refCache.mu.Lock()
	e.refCache.gen, e.refCache.refs, e.refCache.table = g1+1, map[int64]cachedRef{}, nil
	e.refCache.mu.Unlock()
	if err := e.WarmRefs(ctx); err != nil {
		t.Fatal(err)
	}
	if e.refCache.gen != g1+1 || e.refCache.table != nil {
		t.Fatalf("a warm-up of generation %d replaced the cache of generation %d", g1, g1+1)
	}
}

// TestWarmRefsSkipsAnUnchangedIndex: warming again with nothing committed
// since keeps the table it has (an index run that changed nothing costs
// no second read of every ref).
func TestWarmRefsSkipsAnUnchangedIndex(t *testing.T) {
	ctx := context.Background()
	e, st, _ := warmedEngine(t)
	first := e.refCache.table
	if err := e.WarmRefs(ctx); err != nil {
		t.Fatal(err)
	}
	if first == nil || e.refCache.table != first {
		t.Fatalf("a second warm-up of an unchanged index read a new table (%p, then %p)", first, e.refCache.table)
	}
	if err := st.Update(ctx, func(tx *store.Tx) error { _, err := tx.TombstoneDocument("b.md"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := e.WarmRefs(ctx); err != nil {
		t.Fatal(err)
	}
	if e.refCache.table == first {
		t.Fatal("a warm-up after a commit kept the old table")
	}
}
