package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func doc(rel string) record.Document {
	d := record.NewDocument()
	d.RelPath, d.DocType, d.SizeBytes, d.MtimeNs, d.ContentHash = rel, record.DocCode, 10, 1, "sha256:x"
	d.Status, d.Change = record.StatusOK, record.ChangeNew
	return d
}

func chunks(texts ...string) []ChunkInput {
	out := make([]ChunkInput, len(texts))
	for i, t := range texts {
		out[i] = ChunkInput{Text: t, TextHash: "h:" + t, TokensEst: len(t) / 4, IndexKind: record.KindCode,
			Span: record.Lines(i*10+1, i*10+9)}
	}
	return out
}

// put stores a document with chunks and returns the result.
func put(t *testing.T, s *Store, rel, repHash string, texts ...string) RepResult {
	t.Helper()
	var res RepResult
	err := s.Update(context.Background(), func(tx *Tx) error {
		id, err := tx.UpsertDocument(doc(rel), "")
		if err != nil {
			return err
		}
		res, err = tx.ReplaceRepresentation(DocRef{DocID: id, RelPath: rel, DocType: record.DocCode},
			RepInput{Type: record.RepRawText, Hash: repHash}, chunks(texts...))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// search returns the chunks the postings log says are indexed with a
// body holding word (lowercase), ascending: the log folded change by
// change, as the keyword index applies it.
func search(t *testing.T, s *Store, word string) []int64 {
	t.Helper()
	cs, _, err := s.PostingsChanges(context.Background(), 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	live := map[int64]string{}
	for _, c := range cs {
		switch {
		case c.ChunkID == 0:
			clear(live)
		case c.Live:
			_, _, live[c.ChunkID] = c.Columns()
		default:
			delete(live, c.ChunkID)
		}
	}
	var ids []int64
	for id, body := range live {
		if strings.Contains(strings.ToLower(body), word) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestReplaceRepresentationReusesUnchangedChunks(t *testing.T) {
	s, _ := openTest(t)
	r1 := put(t, s, "a.go", "rep1", "alpha one", "beta two", "gamma three")
	if len(r1.Added) != 3 || r1.Kept != 0 {
		t.Fatalf("first put: %+v", r1)
	}
	// Same hash: nothing touched.
	if r := put(t, s, "a.go", "rep1", "alpha one", "beta two", "gamma three"); !r.Unchanged {
		t.Fatalf("same rep hash should be a no-op: %+v", r)
	}
	// Edit the middle chunk: the other two keep their ids.
	r2 := put(t, s, "a.go", "rep2", "alpha one", "beta CHANGED", "gamma three")
	if r2.Kept != 2 || len(r2.Added) != 1 || r2.Removed != 1 {
		t.Fatalf("edit: %+v", r2)
	}
	metas, err := s.ChunkMetas(context.Background(), []int64{r1.Added[0].ChunkID, r1.Added[1].ChunkID, r1.Added[2].ChunkID, r2.Added[0].ChunkID})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := metas[r1.Added[1].ChunkID]; ok {
		t.Error("replaced chunk still live")
	}
	if m := metas[r2.Added[0].ChunkID]; m.Text != "beta CHANGED" || m.Span.StartLine != 11 {
		t.Errorf("new chunk meta = %+v", m)
	}
	if got := search(t, s, "beta"); len(got) != 1 || got[0] != r2.Added[0].ChunkID {
		t.Errorf("search beta = %v, want only the new chunk", got)
	}
}

// The postings log records each change with the chunk's content (the
// hook gets it as committed, a read back gets the current content), and a
// reset.
func TestPostingsLog(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	var hooked []PostingsChange
	s.OnPostings(func(cs []PostingsChange) { hooked = append(hooked, cs...) })
	r := put(t, s, "pkg/reader.go", "1", "func ReadFileHeader() {}", "second chunk")
	if len(hooked) != 2 || !hooked[0].Live || hooked[0].ChunkID != r.Added[0].ChunkID || hooked[0].Kind != record.KindCode ||
		!strings.Contains(hooked[0].Body, "ReadFileHeader") || !strings.Contains(hooked[0].Body, "read file header") ||
		!strings.Contains(hooked[0].Path, "reader") || hooked[1].Seq != hooked[0].Seq+1 {
		t.Fatalf("hooked = %+v", hooked)
	}
	back, last, err := s.PostingsChanges(ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if last != hooked[1].Seq || len(back) != 2 {
		t.Fatalf("read back %+v (last %d), hooked %+v", back, last, hooked)
	}
	for i := range back {
		p, ti, b := back[i].Columns()
		hp, hti, hb := hooked[i].Columns()
		if back[i].Seq != hooked[i].Seq || back[i].ChunkID != hooked[i].ChunkID || p != hp || ti != hti || b != hb {
			t.Errorf("read back %d: %q %q %q, hooked %q %q %q", i, p, ti, b, hp, hti, hb)
		}
	}
	put(t, s, "pkg/reader.go", "2", "func ReadFileHeader() {}") // second chunk removed
	if got := search(t, s, "second"); len(got) != 0 {
		t.Errorf("removed chunk still indexed: %v", got)
	}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.ResetContent() }); err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, "readfileheader"); len(got) != 0 {
		t.Errorf("after reset: %v", got)
	}
	// Pruned entries are gone from the log; the last sequence stays.
	last2, _ := s.PostingsLast(ctx)
	if err := s.PrunePostingsLog(ctx, last2); err != nil {
		t.Fatal(err)
	}
	if cs, l, _ := s.PostingsChanges(ctx, 0, 10); len(cs) != 0 || l != last2 {
		t.Errorf("after prune: %d changes, last %d (want %d)", len(cs), l, last2)
	}
	if id, _ := s.ID(ctx); len(id) != 32 {
		t.Errorf("store id %q", id)
	}
}

func TestTombstoneRemovesFromSearchAndMeta(t *testing.T) {
	s, _ := openTest(t)
	r := put(t, s, "gone.go", "h", "uniqueword here")
	if len(search(t, s, "uniqueword")) != 1 {
		t.Fatal("not found before delete")
	}
	err := s.Update(context.Background(), func(tx *Tx) error {
		n, err := tx.TombstoneDocument("gone.go")
		if n != 1 {
			return fmt.Errorf("tombstoned %d chunks", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := search(t, s, "uniqueword"); len(got) != 0 {
		t.Errorf("deleted chunk still searchable: %v", got)
	}
	if m, _ := s.ChunkMetas(context.Background(), []int64{r.Added[0].ChunkID}); len(m) != 0 {
		t.Error("deleted chunk still has metadata")
	}
	d, ok, _ := s.Document(context.Background(), "gone.go")
	if !ok || !d.Deleted {
		t.Errorf("document not tombstoned: %+v", d)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	s, dir := openTest(t)
	s.Close()
	db, err := sql.Open(driverName, filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(context.Background(), dir, Options{})
	if errcode.Of(err) != errcode.IndexVersionMismatch {
		t.Fatalf("got %v, want INDEX_VERSION_MISMATCH", err)
	}
}

func TestMissingStoreIsNotReady(t *testing.T) {
	_, err := Open(context.Background(), t.TempDir(), Options{ReadOnly: true})
	if errcode.Of(err) != errcode.IndexNotReady {
		t.Fatalf("got %v", err)
	}
}

// Two processes' worth of writers (separate Store handles on one file) must
// both succeed: lock conflicts are retried, never dropped.
func TestConcurrentWritersNeverDropWrites(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var stores []*Store
	for range 3 {
		s, err := Open(ctx, dir, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	for w, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				rel := fmt.Sprintf("w%d/f%03d.go", w, i)
				errs <- s.Update(ctx, func(tx *Tx) error {
					id, err := tx.UpsertDocument(doc(rel), "")
					if err != nil {
						return err
					}
					_, err = tx.ReplaceRepresentation(DocRef{DocID: id, RelPath: rel}, RepInput{Type: record.RepRawText, Hash: rel},
						chunks("text of "+rel))
					return err
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	c, err := stores[0].Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Documents != 300 || c.Chunks != 300 {
		t.Fatalf("counts = %+v, want 300 documents and chunks", c)
	}
}

func TestEmbeddingStatusLifecycle(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	r := put(t, s, "a.go", "1", "one", "two")
	p, err := s.PendingChunks(ctx, record.KindCode, 0, 10)
	if err != nil || len(p) != 2 {
		t.Fatalf("pending = %v, %v", p, err)
	}
	ids := []int64{r.Added[0].ChunkID, r.Added[1].ChunkID}
	if err := s.Update(ctx, func(tx *Tx) error { return tx.MarkEmbedded(ids, "m1") }); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.EmbeddedIDs(ctx, record.KindCode, "m1"); len(got) != 2 {
		t.Fatalf("embedded ids = %v", got)
	}
	if got, _ := s.EmbeddedIDs(ctx, record.KindCode, "m2"); len(got) != 0 {
		t.Fatalf("other model ids = %v", got)
	}
	var n int64
	if err := s.Update(ctx, func(tx *Tx) (err error) { n, err = tx.ResetEmbeddings(record.KindCode); return }); err != nil || n != 2 {
		t.Fatalf("reset = %d, %v", n, err)
	}
	if p, _ := s.PendingChunks(ctx, record.KindCode, 0, 10); len(p) != 2 {
		t.Fatalf("pending after reset = %d", len(p))
	}
}

func TestDocumentsByMetadata(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	err := s.Update(ctx, func(tx *Tx) error {
		for i, p := range []string{"a/1.go", "a/2.md", "b/3.go", "b/4.pdf", "c/5.go"} {
			d := doc(p)
			d.SizeBytes, d.MtimeUnix = int64(100*(i+1)), int64(1000+i)
			if p == "b/4.pdf" {
				d.DocType, d.Status, d.Code = record.DocPDF, record.StatusSkipped, "SECRET_EXCLUDED"
			}
			if _, err := tx.UpsertDocument(d, ""); err != nil {
				return err
			}
		}
		_, err := tx.TombstoneDocument("c/5.go")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	paths := func(q DocQuery, keep func(Doc) bool, limit int) string {
		docs, err := s.Documents(ctx, q, keep, limit)
		if err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, d := range docs {
			ps = append(ps, d.RelPath)
		}
		return strings.Join(ps, ",")
	}
	for _, c := range []struct {
		q    DocQuery
		keep func(Doc) bool
		lim  int
		want string
	}{
		{DocQuery{MaxSize: -1}, nil, 0, "a/1.go,a/2.md,b/3.go,b/4.pdf"},
		{DocQuery{MaxSize: -1, HideCodes: []string{"SECRET_EXCLUDED"}}, nil, 0, "a/1.go,a/2.md,b/3.go"},
		{DocQuery{MaxSize: -1, OnlyCodes: []string{"SECRET_EXCLUDED"}}, nil, 0, "b/4.pdf"},
		{DocQuery{MaxSize: -1, Within: []string{"a/2.md", "b"}}, nil, 0, "a/2.md,b/3.go,b/4.pdf"},
		{DocQuery{MaxSize: -1, After: "a/2.md"}, nil, 0, "b/3.go,b/4.pdf"},
		{DocQuery{MaxSize: -1, PathPrefix: "b/", DocTypes: []string{record.DocCode}}, nil, 0, "b/3.go"},
		{DocQuery{MinSize: 200, MaxSize: 300}, nil, 0, "a/2.md,b/3.go"},
		{DocQuery{MaxSize: 0}, nil, 0, ""},
		{DocQuery{MaxSize: -1, ModifiedSince: 1001, ModifiedBefore: 1003}, nil, 0, "a/2.md,b/3.go"},
		{DocQuery{MaxSize: -1}, func(d Doc) bool { return strings.HasSuffix(d.RelPath, ".go") }, 1, "a/1.go"},
	} {
		if got := paths(c.q, c.keep, c.lim); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.q, got, c.want)
		}
	}
}
