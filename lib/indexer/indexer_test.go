package indexer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

type fixture struct {
	t    *testing.T
	root string
	dir  state.Dir
	st   *store.Store
	cfg  *config.Config
	log  *bytes.Buffer
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		writeFile(t, filepath.Join(root, p), c)
	}
	dir := state.Resolve(root, "")
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &fixture{t: t, root: root, dir: dir, st: st, cfg: config.Default(), log: &bytes.Buffer{}}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func hasher(t *testing.T, dim int) map[string]embed.Embedder {
	t.Helper()
	h, err := hashing.New(dim)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
}

// run indexes the fixture once and returns the run's counters.
func (f *fixture) run(embs map[string]embed.Embedder) Snapshot {
	f.t.Helper()
	p := &Progress{}
	j := &Job{Config: f.cfg, Root: f.root, Dir: f.dir, Store: f.st, Embedders: embs, Progress: p,
		Events: events.NewJSON(f.log)}
	if err := j.Run(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	return p.Snapshot()
}

func (f *fixture) counts() store.Counts {
	f.t.Helper()
	c, err := f.st.Counts(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// codeFile returns a Go file long enough for several chunks.
func codeFile(n int, marker string) string {
	var b strings.Builder
	b.WriteString("package demo\n\n")
	for i := range n {
		b.WriteString("// Func" + strconv.Itoa(i) + " does thing number " + strconv.Itoa(i) + ".\n")
		b.WriteString("func Func" + strconv.Itoa(i) + "() int {\n\treturn " + strconv.Itoa(i) + "\n}\n\n")
	}
	b.WriteString("// " + marker + "\n")
	return b.String()
}

func TestIncrementalRunsReuseVectors(t *testing.T) {
	f := newFixture(t, map[string]string{
		"a.go":    codeFile(120, "end of a"),
		"b.md":    "# B\n\nSome prose about telescopes.\n",
		"c/d.txt": "plain text file\n",
	})
	f.cfg.Chunking.Code.MaxLines = 60
	first := f.run(hasher(t, 64))
	c1 := f.counts()
	if first.Indexed != 3 || c1.Chunks < 5 || c1.Embedded != c1.Chunks || c1.Pending != 0 {
		t.Fatalf("first run %+v, counts %+v", first, c1)
	}
	// Nothing changed: nothing extracted, nothing embedded.
	second := f.run(hasher(t, 64))
	if second.Indexed != 0 || second.Unchanged != 3 || second.Embedded != 0 {
		t.Fatalf("no-op run %+v", second)
	}
	// Change only the end of a.go: only its last chunk is new.
	writeFile(t, filepath.Join(f.root, "a.go"), codeFile(120, "END OF A, EDITED"))
	third := f.run(hasher(t, 64))
	if third.Indexed != 1 || third.Unchanged != 2 {
		t.Errorf("edit run %+v", third)
	}
	if third.ChunksAdded != 1 || third.ChunksKept == 0 || third.Embedded != 1 {
		t.Errorf("edit should add and embed exactly one chunk, keep the rest: %+v", third)
	}
	// Delete a file: its chunks go, and the vector file drops them.
	os.Remove(filepath.Join(f.root, "b.md"))
	fourth := f.run(hasher(t, 64))
	if fourth.Deleted != 1 {
		t.Errorf("delete run %+v", fourth)
	}
	c := f.counts()
	ix, err := vector.Open(f.dir.Join(vector.FileName(record.KindText)))
	if err != nil {
		t.Fatal(err)
	}
	if int64(ix.Len()) != c.ChunksByKind[record.KindText] {
		t.Errorf("text vector file has %d vectors, store %d live text chunks", ix.Len(), c.ChunksByKind[record.KindText])
	}
}

// Changing the embedder re-embeds everything with a notice and never mixes
// vectors of two models in one file.
func TestModelChangeReembedsEverything(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": codeFile(30, "x"), "b.md": "# Title\n\ntext body here\n"})
	f.run(hasher(t, 64))
	before := f.counts()
	f.log.Reset()
	second := f.run(hasher(t, 128))
	if second.Embedded != before.Chunks {
		t.Errorf("re-embedded %d chunks, want all %d", second.Embedded, before.Chunks)
	}
	if !strings.Contains(f.log.String(), "changed from hash-v1/64") || !strings.Contains(f.log.String(), "re-embedding") {
		t.Errorf("no model-change notice in events:\n%s", f.log.String())
	}
	for _, kind := range []string{record.KindText, record.KindCode} {
		ix, err := vector.Open(f.dir.Join(vector.FileName(kind)))
		if err != nil {
			t.Fatal(err)
		}
		if ix.Model() != "hash-v1/128" || ix.Dim() != 128 || int64(ix.Len()) != before.ChunksByKind[kind] {
			t.Errorf("%s file: model %s dim %d len %d", kind, ix.Model(), ix.Dim(), ix.Len())
		}
	}
	if s, _ := f.st.Setting(context.Background(), store.KeyEmbedCodeModel); s != "hash-v1/128" {
		t.Errorf("settings record model %q", s)
	}
}

// A lost vector file (or a crash after chunks were marked) is detected and
// the chunks are embedded again.
func TestLostVectorsAreRebuilt(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": codeFile(30, "x")})
	f.run(hasher(t, 64))
	n := f.counts().Chunks
	os.Remove(f.dir.Join(vector.FileName(record.KindCode)))
	f.log.Reset()
	again := f.run(hasher(t, 64))
	if again.Embedded != n {
		t.Errorf("re-embedded %d of %d chunks", again.Embedded, n)
	}
	if !strings.Contains(f.log.String(), "have no vector") {
		t.Errorf("no notice about missing vectors:\n%s", f.log.String())
	}
}

func TestSecondWriterIsRefused(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"})
	lock, err := f.dir.TryLock(state.IndexLock)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	j := &Job{Config: f.cfg, Root: f.root, Dir: f.dir, Store: f.st, Embedders: hasher(t, 64)}
	err = j.Run(context.Background())
	if errcode.Of(err) != errcode.IndexLocked || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("got %v, want INDEX_LOCKED naming the holder", err)
	}
}

// Hostile document records (from a hand-made pipeline) never read outside
// the root; they are recorded as per-file errors and the run goes on.
func TestExtractRefusesPathsOutsideRoot(t *testing.T) {
	f := newFixture(t, map[string]string{"ok.txt": "fine\n"})
	outside := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, outside, "outside secret\n")
	docs := make(chan record.Document, 3)
	for _, rel := range []string{"../" + filepath.Base(filepath.Dir(outside)) + "/secret.txt", outside, "ok.txt"} {
		d := record.NewDocument()
		d.Root, d.RelPath, d.DocType, d.Change, d.Status = f.root, rel, record.DocText, record.ChangeNew, record.StatusOK
		docs <- d
	}
	close(docs)
	p := &Progress{}
	x := &Extractor{Store: f.st, Config: f.cfg, Progress: p, Events: events.Discard()}
	if err := x.Run(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	s := p.Snapshot()
	if s.Errors != 2 || s.Indexed != 1 {
		t.Fatalf("progress %+v, want 2 errors and 1 indexed", s)
	}
	list, _ := f.st.Documents(context.Background(), store.DocQuery{MaxSize: -1}, nil, 0)
	for _, d := range list {
		if d.Status == record.StatusError && d.ErrorCode != string(errcode.PathOutsideRoot) {
			t.Errorf("%s: error code %s", d.RelPath, d.ErrorCode)
		}
	}
	postings.Ensure(f.st, f.dir, nil)
	if err := f.st.SyncPostings(context.Background()); err != nil {
		t.Fatal(err)
	}
	kw, err := postings.Open(f.dir.Path)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := kw.DocFreq("outside", 0); n != 0 {
		t.Error("content from outside the root was indexed")
	}
}

// A chunking policy change rebuilds representations on the next run.
func TestPolicyChangeRebuildsChunks(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": codeFile(120, "x")})
	f.cfg.Chunking.Code.MaxLines = 200
	f.run(hasher(t, 64))
	before := f.counts().Chunks
	f.cfg.Chunking.Code.MaxLines = 40
	run := f.run(hasher(t, 64))
	after := f.counts().Chunks
	if run.Reps != 1 || after <= before {
		t.Errorf("policy change: run %+v, chunks %d → %d", run, before, after)
	}
}
