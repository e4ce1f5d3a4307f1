package postings

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func startMaintainer(t *testing.T, dir string, st *store.Store) *Maintainer {
	t.Helper()
	m := &Maintainer{Dir: state.Dir{Path: dir}, Store: st}
	m.Start(context.Background())
	st.AttachPostings(m)
	return m
}

// stoppedMaintainer returns a state dir and its store, whose keyword index
// holds one chunk of text and whose maintainer has stopped: what is
// stored next is only logged, for the next maintainer to catch up on.
func stoppedMaintainer(t *testing.T, text string) (string, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	st := openStore(t, dir)
	m := startMaintainer(t, dir, st)
	putDoc(t, st, "a.go", "", "1", text)
	if err := st.SyncPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.Close()
	st.AttachPostings(nil)
	return dir, st
}

// putDoc stores a document of text chunks under rel.
func putDoc(t *testing.T, st *store.Store, rel, title, hash string, texts ...string) store.RepResult {
	t.Helper()
	var res store.RepResult
	err := st.Update(context.Background(), func(tx *store.Tx) error {
		d := record.NewDocument()
		d.RelPath, d.DocType, d.SizeBytes, d.MtimeNs, d.ContentHash = rel, record.DocCode, 10, 1, "sha256:x"
		d.Status, d.Change = record.StatusOK, record.ChangeNew
		id, err := tx.UpsertDocument(d, title)
		if err != nil {
			return err
		}
		var pieces []store.ChunkInput
		for i, s := range texts {
			pieces = append(pieces, store.ChunkInput{Text: s, TextHash: "h:" + s, IndexKind: record.KindCode, Span: record.Lines(i+1, i+1)})
		}
		res, err = tx.ReplaceRepresentation(store.DocRef{DocID: id, RelPath: rel, Title: title, DocType: record.DocCode, TitleChanged: true},
			store.RepInput{Type: record.RepRawText, Hash: hash}, pieces)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func find(t *testing.T, s *Snapshot, q string) []int64 {
	t.Helper()
	hits, err := s.Search(Query{Groups: lexical.Parse(q).Match().Groups, Weights: defaultWeights, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func current(t *testing.T, dir string, st *store.Store) *Snapshot {
	t.Helper()
	if err := st.SyncPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The maintained index follows the store's chunks through adds, edits
// (unchanged chunks kept), title changes, deletes and a reset, and ranks
// like an index rebuilt from scratch; query syntax in user input is inert.
func TestMaintainerFollowsStore(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	startMaintainer(t, dir, st)
	a := putDoc(t, st, "archive/tar/reader.go", "", "1", "func (tr *Reader) ReadFileHeader() error { return nil }", "unchanged chunk")
	b := putDoc(t, st, "notes.md", "Notes", "2", "the archive format stores a header per entry")
	s := current(t, dir, st)
	if got := find(t, s, "how does the tar archive store each entry?"); len(got) != 3 || got[0] != b.Added[0].ChunkID {
		t.Errorf("question = %v, want notes first, then the reader's chunks (by path)", got)
	}
	if got := find(t, s, "read file header"); len(got) == 0 || got[0] != a.Added[0].ChunkID {
		t.Errorf("identifier parts = %v", got)
	}
	if got := find(t, s, "ReadFileHeader"); len(got) != 2 || got[0] != a.Added[0].ChunkID {
		t.Errorf("identifier = %v, want the reader, then the notes (header)", got)
	}
	for _, q := range []string{`"unbalanced`, `NEAR(a b)`, `header*`, `col:header`, `-header`, `a AND OR NOT`, `'); DROP TABLE chunks; --`} {
		find(t, s, q)
	}
	// Edit: the first chunk replaced, the second kept; the title changes.
	c := putDoc(t, st, "archive/tar/reader.go", "Tar reader", "3", "func Next() advances to the next entry", "unchanged chunk")
	s = current(t, dir, st)
	if got := find(t, s, "ReadFileHeader"); slices.Contains(got, a.Added[0].ChunkID) {
		t.Errorf("replaced chunk still found: %v", got)
	}
	if got := find(t, s, "advances"); len(got) != 1 || got[0] != c.Added[0].ChunkID {
		t.Errorf("new chunk = %v", got)
	}
	if got := find(t, s, "unchanged"); len(got) != 1 || got[0] != a.Added[1].ChunkID {
		t.Errorf("kept chunk = %v (want its old id %d)", got, a.Added[1].ChunkID)
	}
	// The kept chunk is indexed under the new title.
	if hits, _ := s.Search(Query{Groups: [][]string{{"tar"}}, Cols: 1 << ColTitle, Weights: defaultWeights, Limit: 10}); len(hits) != 2 {
		t.Errorf("title search = %v, want both chunks of the retitled document", hits)
	}
	if err := st.Update(context.Background(), func(tx *store.Tx) error { _, err := tx.TombstoneDocument("notes.md"); return err }); err != nil {
		t.Fatal(err)
	}
	s = current(t, dir, st)
	if got := find(t, s, "header"); len(got) != 0 {
		t.Errorf("deleted document still found: %v", got)
	}
	assertSameAsRebuild(t, dir, st, s, []string{"archive entry", "tar reader next", "unchanged chunk", "header"})
	if err := st.Update(context.Background(), func(tx *store.Tx) error { return tx.ResetContent() }); err != nil {
		t.Fatal(err)
	}
	if s = current(t, dir, st); s.Rows() != 0 {
		t.Errorf("after reset: %d rows", s.Rows())
	}
}

// assertSameAsRebuild compares s with an index rebuilt from the store.
func assertSameAsRebuild(t *testing.T, dir string, st *store.Store, s *Snapshot, queries []string) {
	t.Helper()
	other := t.TempDir()
	w, err := OpenWriter(other)
	if err != nil {
		t.Fatal(err)
	}
	m := &Maintainer{Dir: state.Dir{Path: other}, Store: st}
	id, _ := st.ID(context.Background())
	if err := m.rebuild(context.Background(), w, id); err != nil {
		t.Fatal(err)
	}
	r, err := Open(other)
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows() != s.Rows() || r.tokens != s.tokens {
		t.Fatalf("rows %d tokens %d, rebuilt: rows %d tokens %d", s.Rows(), s.tokens, r.Rows(), r.tokens)
	}
	for _, q := range queries {
		qq := Query{Groups: lexical.Parse(q).Match().Groups, Weights: defaultWeights, Limit: 100}
		got, _ := s.Search(qq)
		want, _ := r.Search(qq)
		if !slices.Equal(got, want) {
			t.Errorf("%q: maintained %v, rebuilt %v", q, got, want)
		}
	}
}

// Changes committed while no process maintains the index (a crash, a
// writer without a maintainer) are applied from the log by the next
// maintainer; an index of another store is rebuilt.
func TestMaintainerCatchesUpAndRebuilds(t *testing.T) {
	dir, st := stoppedMaintainer(t, "alpha beta")
	r := rand.New(rand.NewSource(4))
	for i := range 30 {
		putDoc(t, st, fmt.Sprintf("f%d.go", i), "", "1", words[r.Intn(len(words))]+" gamma", "delta "+words[r.Intn(len(words))])
	}
	putDoc(t, st, "a.go", "", "2", "alpha epsilon")
	startMaintainer(t, dir, st)
	s := current(t, dir, st)
	if got := find(t, s, "gamma"); len(got) != 30 {
		t.Errorf("gamma: %d chunks, want 30", len(got))
	}
	if got := find(t, s, "beta"); len(got) != 0 {
		t.Errorf("beta still found after its chunk was replaced: %v", got)
	}
	assertSameAsRebuild(t, dir, st, s, []string{"gamma delta", "alpha", "epsilon beta"})

	// The same index files beside another store: rebuilt, not trusted.
	st.Close()
	os.Remove(dir + "/meta.sqlite")
	os.Remove(dir + "/meta.sqlite-wal")
	os.Remove(dir + "/meta.sqlite-shm")
	st2 := openStore(t, dir)
	startMaintainer(t, dir, st2)
	putDoc(t, st2, "only.go", "", "1", "zeta")
	s = current(t, dir, st2)
	if s.Rows() != 1 || len(find(t, s, "gamma")) != 0 || len(find(t, s, "zeta")) != 1 {
		t.Errorf("index of the new store: %d rows", s.Rows())
	}
}

// A maintainer catching up a long log (here: started after 90 documents
// were stored) flushes whenever it holds flushBytes, rather than holding
// the whole log in memory until it has caught up: what it buffers is
// bounded by flushBytes, not by how far behind it is.
func TestMaintainerCatchingUpFlushesInSteps(t *testing.T) {
	defer func(b int64, n int) { flushBytes, readBatch = b, n }(flushBytes, readBatch)
	flushBytes, readBatch = 4<<10, 10
	dir, st := stoppedMaintainer(t, "alpha")
	before := current(t, dir, st).Segments()
	r := rand.New(rand.NewSource(7))
	for i := range 90 {
		putDoc(t, st, fmt.Sprintf("f%d.go", i), "", "1", words[r.Intn(len(words))]+" gamma "+words[r.Intn(len(words))], "delta "+words[r.Intn(len(words))])
	}
	startMaintainer(t, dir, st)
	s := current(t, dir, st)
	if got := find(t, s, "gamma"); len(got) != 90 || s.Rows() != 181 {
		t.Errorf("gamma: %d chunks, want 90; %d rows, want 181", len(got), s.Rows())
	}
	t.Logf("segments: %d before, %d after", before, s.Segments())
	if s.Segments()-before < 2 {
		t.Errorf("caught up on 180 chunks in %d new segment(s): all were held until the end", s.Segments()-before)
	}
	assertSameAsRebuild(t, dir, st, s, []string{"gamma delta", "gamma", "delta read"})
}

// Two maintainers on one state dir (two processes writing chunks): one
// holds the lock and applies both's changes; the other's Sync waits for
// it, and takes over when it stops.
func TestTwoMaintainers(t *testing.T) {
	dir := t.TempDir()
	st1 := openStore(t, dir)
	st2 := openStore(t, dir)
	m1 := startMaintainer(t, dir, st1)
	putDoc(t, st1, "one.go", "", "1", "first process")
	if err := st1.SyncPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	startMaintainer(t, dir, st2)
	putDoc(t, st2, "two.go", "", "1", "second process")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := st2.SyncPostings(ctx); err != nil {
		t.Fatal(err)
	}
	s, _ := Open(dir)
	if got := find(t, s, "process"); len(got) != 2 {
		t.Errorf("after the holder applied both: %v", got)
	}
	m1.Close()
	st1.AttachPostings(nil)
	putDoc(t, st2, "three.go", "", "1", "third process")
	if err := st2.SyncPostings(ctx); err != nil {
		t.Fatal(err)
	}
	s, _ = Open(dir)
	if got := find(t, s, "process"); len(got) != 3 {
		t.Errorf("after the second took over: %v", got)
	}
}

// A server's index left idle for settleAfter, with no indexing job of the
// process running, is merged into one segment (Writer.Settle) and ranks
// as a rebuilt index does; a process that is not a server (a one-shot
// command) never settles, nor a server while its job runs.
func TestMaintainerSettlesIdleIndex(t *testing.T) {
	defer func(d, f time.Duration) { settleAfter, flushEvery = d, f }(settleAfter, flushEvery)
	settleAfter, flushEvery = 200*time.Millisecond, 50*time.Millisecond
	dir := t.TempDir()
	st := openStore(t, dir)
	startMaintainer(t, dir, st)
	for i := range settleMin + 2 { // one segment per synced commit
		putDoc(t, st, fmt.Sprintf("pkg%d/file.go", i), "", fmt.Sprint(i), fmt.Sprintf("func Handler%d() serves request number %d", i, i))
		if s := current(t, dir, st); s.Segments() != i+1 {
			t.Fatalf("after commit %d: %d segments", i+1, s.Segments())
		}
	}
	stays := func(who string) {
		time.Sleep(3 * settleAfter)
		if s := current(t, dir, st); s.Segments() != settleMin+2 {
			t.Fatalf("%s settled the index: %d segments", who, s.Segments())
		}
	}
	stays("a process that is not a server")
	defer Serving(dir)()
	done := Working(dir)
	stays("a server running an indexing job")
	done()
	deadline := time.Now().Add(20 * time.Second)
	s := current(t, dir, st)
	for s.Segments() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("idle index still has %d segments", s.Segments())
		}
		time.Sleep(50 * time.Millisecond)
		if s, _ = Open(dir); s == nil {
			t.Fatal("index unreadable while settling")
		}
	}
	assertSameAsRebuild(t, dir, st, s, []string{"serves request", "handler number 3", "func"})
}
