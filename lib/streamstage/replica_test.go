package streamstage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

func hashEmbedders(t *testing.T) map[string]embed.Embedder {
	h, err := hashing.New(64)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]embed.Embedder{"text": h, "code": h}
}

func openStore(t *testing.T, dir state.Dir) *store.Store {
	t.Helper()
	if err := dir.Ensure(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// snapshot is what an index holds, independent of ids: each live chunk
// as path|ordinal|text hash|embedded, and each document with its status.
func snapshot(t *testing.T, st *store.Store) (docs, chunks []string) {
	t.Helper()
	rows, err := st.ReadDB().Query(`SELECT d.rel_path, d.status, COALESCE(d.error_code,''), d.content_hash, d.title FROM documents d WHERE d.deleted = 0`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p, s, c, h, title string
		if err := rows.Scan(&p, &s, &c, &h, &title); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, p+"|"+s+"|"+c+"|"+h+"|"+title)
	}
	rows.Close()
	rows, err = st.ReadDB().Query(`SELECT d.rel_path, c.ordinal, c.text_hash, c.embedding_status, d.title
		FROM chunks c JOIN representations r ON r.rep_id = c.rep_id JOIN documents d ON d.doc_id = r.doc_id WHERE c.deleted = 0`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p, h, e, title string
		var o int
		if err := rows.Scan(&p, &o, &h, &e, &title); err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, fmt.Sprintf("%s|%d|%s|%s|%s", p, o, h, e, title))
	}
	rows.Close()
	sort.Strings(docs)
	sort.Strings(chunks)
	return docs, chunks
}

func tree(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("notes/n%03d.md", i)] = fmt.Sprintf("# Note %d\n\n## Sky\n\nThe observatory log entry %d mentions comet C/%d.\n", i, i, 2000+i)
		files[fmt.Sprintf("src/p%03d/f.go", i)] = fmt.Sprintf("package p%d\n\n// F returns %d.\nfunc F() int { return %d }\n", i, i, i)
	}
	files["page.html"] = "<html><head><title>Dome</title></head><body><h1>Dome</h1><p>The dome rotates.</p></body></html>"
	return files
}

// A replica fed by workers holds the same documents and chunks (all
// embedded) as an in-process index of the same tree; restarted after the
// stream moved on, it applies only the new records (reread = 0).
func TestReplicaMatchesLocalIndexAndResumes(t *testing.T) {
	ctx := context.Background()
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.docs")
	root := writeTree(t, tree(30))
	embs := hashEmbedders(t)

	local := state.Resolve(root, t.TempDir())
	lst := openStore(t, local)
	job := &indexer.Job{Config: config.Default(), Root: root, Dir: local, Store: lst, Embedders: embs, Events: events.Discard()}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}

	pipeline := func() {
		scanTo(t, conn, "d2m.docs", root)
		if err := extractWorker(conn, "d2m.docs", "d2m.chunks", events.Discard()).Run(ctx); err != nil {
			t.Fatal(err)
		}
		e := &Embed{Work: stream.Work{Conn: conn, Subject: "d2m.chunks", Durable: "embed", AckWait: 2 * time.Second, Batch: 32, IdleExit: true},
			Out: VectorSubject("d2m.chunks"), Embedders: embs, Events: events.Discard()}
		if err := e.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pipeline()

	rdir := state.Resolve(root, t.TempDir())
	// Changed runs before the replica says it is caught up, with every
	// vector on disk: what a server reloads then is complete.
	vectors := func(dir state.Dir) (n int) {
		for _, kind := range []string{record.KindText, record.KindCode} {
			if ix, err := vector.Open(dir.Join(vector.FileName(kind))); err == nil {
				n += ix.Len()
			}
		}
		return n
	}
	changed := []int{}
	replica := func() *Replica {
		r := &Replica{Conn: conn, Subject: "d2m.chunks", Store: openStore(t, rdir), Dir: rdir, Embedders: embs,
			Extractor: &indexer.Extractor{Config: config.Default(), Events: events.Discard()}, Events: events.Discard(),
			Changed: func() { changed = append(changed, vectors(rdir)) }}
		if err := r.Open(ctx); err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := replica()
	catchUp(t, r1)
	if want := vectors(local); len(changed) == 0 || changed[len(changed)-1] != want || want == 0 {
		t.Errorf("Changed calls saw %v vectors on disk, want the last with all %d", changed, want)
	}
	wantDocs, wantChunks := snapshot(t, lst)
	gotDocs, gotChunks := snapshot(t, r1.Store)
	if fmt.Sprint(gotDocs) != fmt.Sprint(wantDocs) {
		t.Errorf("documents differ:\nreplica %v\nlocal   %v", gotDocs, wantDocs)
	}
	if fmt.Sprint(gotChunks) != fmt.Sprint(wantChunks) {
		t.Errorf("chunks differ:\nreplica %d %v\nlocal   %d %v", len(gotChunks), gotChunks[:min(3, len(gotChunks))], len(wantChunks), wantChunks[:min(3, len(wantChunks))])
	}
	first := r1.Status().AppliedSeq
	r1.Store.Close()

	// The stream moves on: new files are published while the replica is down.
	writeTreeAt(t, root, map[string]string{"late/one.md": "# Late\n\nA late note about the spectrograph.\n", "late/two.txt": "second late file"})
	pipeline()
	r2 := replica()
	if r2.Status().AppliedSeq != first {
		t.Fatalf("restarted replica resumes at %d, want %d", r2.Status().AppliedSeq, first)
	}
	catchUp(t, r2)
	st := r2.Status()
	if st.Reread != 0 {
		t.Errorf("restarted replica re-read %d already applied records, want 0", st.Reread)
	}
	if st.Received == 0 || st.AppliedSeq <= first {
		t.Errorf("restarted replica did not apply the new records: %+v", st)
	}
	_, chunks := snapshot(t, r2.Store)
	if len(chunks) != len(wantChunks)+2 {
		t.Errorf("%d chunks after catching up, want %d", len(chunks), len(wantChunks)+2)
	}
	// A scanner given the replica's state dir sends only what changed.
	changes := map[string]int{}
	if _, err := indexer.Scan(ctx, config.Default(), indexer.ScanInput{Root: root, Dir: rdir, Store: r2.Store},
		func(d record.Document) error { changes[d.Change]++; return nil }); err != nil {
		t.Fatal(err)
	}
	if changes[record.ChangeUnchanged] != 63 || len(changes) != 1 {
		t.Errorf("scan against the replica's index: %v, want 63 unchanged", changes)
	}
}

// A document whose representation record is larger than a stream message
// may be travels as an object: the message is a stub naming it, and the
// replica stores the whole document.
func TestLargeRepresentationTravelsAsObject(t *testing.T) {
	ctx := context.Background()
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.docs")
	var big []byte
	for i := 0; len(big) < 1_300_000; i++ {
		big = fmt.Appendf(big, "Line %d of the long observing manual: calibrate the spectrograph before every run.\n\n", i)
	}
	root := writeTree(t, map[string]string{"manual.md": string(big)})
	local := state.Resolve(root, t.TempDir())
	lst := openStore(t, local)
	if err := (&indexer.Job{Config: config.Default(), Root: root, Dir: local, Store: lst, Embedders: hashEmbedders(t), Events: events.Discard()}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	scanTo(t, conn, "d2m.docs", root)
	if err := extractWorker(conn, "d2m.docs", "d2m.chunks", events.Discard()).Run(ctx); err != nil {
		t.Fatal(err)
	}
	reps := messages(t, conn, RepSubject("d2m.chunks"))
	var stub indexer.Prepared
	if len(reps) != 1 || record.Decode(reps[0], record.TypeRepresentation, &stub) != nil || stub.Ref == "" || len(stub.Chunks) != 0 {
		t.Fatalf("want one stub representation record naming an object, got %d records: %.200s", len(reps), reps)
	}
	rdir := state.Resolve(root, t.TempDir())
	r := &Replica{Conn: conn, Subject: "d2m.chunks", Store: openStore(t, rdir), Dir: rdir, Embedders: hashEmbedders(t),
		Extractor: &indexer.Extractor{Config: config.Default(), Events: events.Discard()}, Events: events.Discard()}
	if err := r.Open(ctx); err != nil {
		t.Fatal(err)
	}
	catchUp(t, r)
	_, want := snapshot(t, lst)
	_, got := snapshot(t, r.Store)
	if len(got) != len(want) || len(want) < 100 {
		t.Errorf("replica holds %d chunks of the large document, local index %d", len(got), len(want))
	}
}

// Vectors from another embedding model are kept apart: the replica says
// once that its chunks stay pending, and never attaches them.
func TestReplicaWarnsOfForeignModel(t *testing.T) {
	ctx := context.Background()
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.chunks")
	if _, err := conn.Ensure(ctx, "d2m.chunks"); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		v := record.NewVector()
		v.Model, v.IndexKind, v.Key, v.Vector = "other-model/3", record.KindText, fmt.Sprintf("sha256:%d", i), []float32{1, 0, 0}
		if err := conn.Publish(ctx, stream.Out{Subject: VectorSubject("d2m.chunks"), Kind: kindVector, Record: v}); err != nil {
			t.Fatal(err)
		}
	}
	ev := &syncBuffer{}
	dir := state.Resolve(t.TempDir(), t.TempDir())
	r := &Replica{Conn: conn, Subject: "d2m.chunks", Store: openStore(t, dir), Dir: dir, Embedders: hashEmbedders(t),
		Extractor: &indexer.Extractor{Config: config.Default(), Events: events.Discard()}, Events: events.NewJSON(ev)}
	if err := r.Open(ctx); err != nil {
		t.Fatal(err)
	}
	catchUp(t, r)
	if n := strings.Count(ev.String(), "publish other-model/3 vectors but this replica searches with"); n != 1 {
		t.Errorf("%d warnings about the foreign model, want 1:\n%s", n, ev.String())
	}
}

// catchUp runs r until it has applied everything on its stream, then
// stops it.
func catchUp(t *testing.T, r *Replica) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for !r.Status().CaughtUp && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !r.Status().CaughtUp {
		t.Fatalf("replica not caught up: %+v", r.Status())
	}
}
