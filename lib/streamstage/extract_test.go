package streamstage

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
	"github.com/nats-io/nats.go/jetstream"
)

// Two extract workers share one durable consumer: every document is
// extracted once (its representation appears once per document), chunk
// records are exactly the NDJSON chunk records, and the content came from
// the object store (the tree is deleted before the workers run).
func TestExtractWorkersShareConsumer(t *testing.T) {
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.docs")
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("notes/n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nThe observatory log entry number %d mentions comet C/%d.\n", i, i, 2000+i)
	}
	root := writeTree(t, files)
	if n := scanTo(t, conn, "d2m.docs", root); n != 40 {
		t.Fatalf("scan published %d documents, want 40", n)
	}
	// Workers need no shared file system: the bytes are in the bucket.
	if err := removeAll(root); err != nil {
		t.Fatal(err)
	}
	// The document records are taken off the stream and published again
	// once both workers wait on the consumer, so both get some: a worker
	// that started first could otherwise take them all before the other
	// asked (and a busy machine did that).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	docs := messages(t, conn, "d2m.docs")
	name, err := conn.JS.StreamNameBySubject(ctx, "d2m.docs")
	if err != nil {
		t.Fatal(err)
	}
	js, err := conn.JS.Stream(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.Purge(ctx, jetstream.WithPurgeSubject("d2m.docs")); err != nil {
		t.Fatal(err)
	}
	ev := &syncBuffer{}
	var wg sync.WaitGroup
	workers := []*Extract{
		extractWorker(conn, "d2m.docs", "d2m.chunks", events.NewJSON(ev)),
		extractWorker(conn, "d2m.docs", "d2m.chunks", events.NewJSON(ev)),
	}
	for _, w := range workers {
		w.Work.IdleExit = false // they stop when the outputs are all there
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	waitFor(t, "both workers asking for records", func() bool {
		c, err := conn.JS.Consumer(ctx, name, "extract")
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumWaiting >= 2
	})
	for _, b := range docs {
		if _, err := conn.JS.Publish(ctx, "d2m.docs", b); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "40 representation and 40 chunk records", func() bool {
		return len(messages(t, conn, RepSubject("d2m.chunks"))) >= 40 && len(messages(t, conn, "d2m.chunks")) >= 40
	})
	cancel()
	wg.Wait()
	reps := messages(t, conn, RepSubject("d2m.chunks"))
	if len(reps) != 40 {
		t.Fatalf("%d representation records, want 40 (one per document)", len(reps))
	}
	seen := map[string]bool{}
	for _, b := range reps {
		var p indexer.Prepared
		if err := record.Decode(b, record.TypeRepresentation, &p); err != nil {
			t.Fatal(err)
		}
		if p.Action != "replace" || p.Title == "" || len(p.Chunks) != 1 {
			t.Errorf("%s: action %q title %q chunks %d", p.Document.RelPath, p.Action, p.Title, len(p.Chunks))
		}
		seen[p.Document.RelPath] = true
	}
	if len(seen) != 40 {
		t.Errorf("%d distinct documents extracted, want 40", len(seen))
	}
	chunks := messages(t, conn, "d2m.chunks")
	if len(chunks) != 40 {
		t.Fatalf("%d chunk records, want 40", len(chunks))
	}
	var rc record.Chunk
	if err := record.Decode(chunks[0], record.TypeChunk, &rc); err != nil || !strings.Contains(rc.Text, "observatory") {
		t.Fatalf("chunk record %s: %v", chunks[0], err)
	}
	if workers[0].stats.docs.Load() == 0 || workers[1].stats.docs.Load() == 0 {
		t.Errorf("work not shared: %d and %d documents", workers[0].stats.docs.Load(), workers[1].stats.docs.Load())
	}
}

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A worker that dies holding records (fetched, never acked) loses nothing:
// the records are redelivered to the next worker after AckWait, and the
// outputs a redelivery re-publishes are stored once (Nats-Msg-Id).
func TestExtractRedeliveryDoesNotDuplicate(t *testing.T) {
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.docs")
	root := writeTree(t, map[string]string{"a.txt": "alpha beta gamma", "b.txt": "delta epsilon"})
	scanTo(t, conn, "d2m.docs", root)
	ctx := context.Background()
	w := extractWorker(conn, "d2m.docs", "d2m.chunks", events.Discard())
	if _, err := conn.Ensure(ctx, "d2m.chunks"); err != nil {
		t.Fatal(err)
	}
	// A first worker processes and publishes, then "crashes" before acking.
	name, _ := conn.JS.StreamNameBySubject(ctx, "d2m.docs")
	w.Work.Stream = name
	cons, err := w.Work.Consumer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	crashed := extractWorker(conn, "d2m.docs", "d2m.chunks", events.Discard())
	crashed.content, _ = conn.Content(ctx, "d2m.docs")
	crashed.Extractor.Read = func(d record.Document) ([]byte, error) { return crashed.read(ctx, d) }
	crashed.Work.Conn = conn
	b, err := cons.Fetch(2, jetstream.FetchMaxWait(2e9))
	if err != nil {
		t.Fatal(err)
	}
	var held []jetstream.Msg
	for m := range b.Messages() {
		held = append(held, m)
	}
	if len(held) != 2 {
		t.Fatalf("fetched %d, want 2", len(held))
	}
	for _, err := range crashed.handle(ctx, held) {
		if err != nil {
			t.Fatal(err)
		}
	}
	// No ack: the next worker gets both again after AckWait.
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := w.stats.docs.Load(); got != 2 {
		t.Errorf("redelivered documents processed: %d, want 2", got)
	}
	if n := len(messages(t, conn, "d2m.chunks")); n != 2 {
		t.Errorf("%d chunk records after redelivery, want 2 (no duplicates)", n)
	}
	if n := len(messages(t, conn, RepSubject("d2m.chunks"))); n != 2 {
		t.Errorf("%d representation records after redelivery, want 2", n)
	}
}

// A malformed record is parked on the dead-letter subject with its error,
// reported as a record_parked event, terminated (never redelivered), and the
// records after it are processed.
func TestMalformedRecordIsParked(t *testing.T) {
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.docs")
	root := writeTree(t, map[string]string{"a.txt": "alpha beta gamma"})
	ctx := context.Background()
	if _, err := conn.Ensure(ctx, "d2m.docs"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.JS.Publish(ctx, "d2m.docs", []byte(`{"type":"document","v":"2.0","rel_path":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.JS.Publish(ctx, "d2m.docs", []byte(`not json`)); err != nil {
		t.Fatal(err)
	}
	scanTo(t, conn, "d2m.docs", root)
	ev := &syncBuffer{}
	w := extractWorker(conn, "d2m.docs", "d2m.chunks", events.NewJSON(ev))
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(messages(t, conn, "d2m.chunks")); n != 1 {
		t.Errorf("%d chunk records, want 1: the good document behind the bad ones", n)
	}
	dead := messages(t, conn, stream.DeadSubject("d2m.docs"))
	if len(dead) != 2 || string(dead[1]) != "not json" {
		t.Fatalf("dead letters %q, want the two bad records", dead)
	}
	log := ev.String()
	if strings.Count(log, `"event":"record_parked"`) != 2 || !strings.Contains(log, `"code":"RECORD_INVALID"`) ||
		!strings.Contains(log, "version 2.0 is not supported") {
		t.Errorf("events:\n%s", log)
	}
	name, _ := conn.JS.StreamNameBySubject(ctx, "d2m.docs")
	cons, _ := conn.JS.Consumer(ctx, name, "extract")
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumPending != 0 || info.NumAckPending != 0 || info.NumRedelivered != 0 {
		t.Errorf("consumer pending %d, ack pending %d, redelivered %d: a parked record must not come back",
			info.NumPending, info.NumAckPending, info.NumRedelivered)
	}
}

// With --content path the scanner stores no bytes: workers read the shared
// root. A chunk record of an unknown index kind is parked by the embed
// worker like any unreadable record.
func TestSharedPathAndEmbedParking(t *testing.T) {
	c := streamtest.Start(t, 1)
	conn, _ := connect(t, c, "d2m.docs")
	root := writeTree(t, map[string]string{"a.md": "# A\n\nshared file system text"})
	ctx := context.Background()
	p := &DocPublisher{Conn: conn, Subject: "d2m.docs", Shared: true}
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	d := record.NewDocument()
	d.Root, d.RelPath, d.DocType, d.Change, d.Status, d.SourceType = root, "a.md", record.DocMarkdown, record.ChangeNew, record.StatusOK, record.SourceFile
	if err := p.Publish(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.JS.ObjectStore(ctx, stream.ContentBucket("d2m.docs")); err == nil {
		t.Error("--content path created a content bucket")
	}
	if err := extractWorker(conn, "d2m.docs", "d2m.chunks", events.Discard()).Run(ctx); err != nil {
		t.Fatal(err)
	}
	chunks := messages(t, conn, "d2m.chunks")
	if len(chunks) != 1 || !strings.Contains(string(chunks[0]), "shared file system text") {
		t.Fatalf("chunks from the shared path: %q", chunks)
	}
	if _, err := conn.JS.Publish(ctx, "d2m.chunks", []byte(`{"type":"chunk","v":"1.0","index_kind":"pictures","text":"x"}`)); err != nil {
		t.Fatal(err)
	}
	ev := &syncBuffer{}
	e := &Embed{Work: stream.Work{Conn: conn, Subject: "d2m.chunks", Durable: "embed", AckWait: 2e9, Batch: 8, IdleExit: true},
		Out: VectorSubject("d2m.chunks"), Embedders: hashEmbedders(t), Events: events.NewJSON(ev)}
	if err := e.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if e.Embedded() != 1 || len(messages(t, conn, VectorSubject("d2m.chunks"))) != 1 {
		t.Errorf("embedded %d, want 1", e.Embedded())
	}
	dead := messages(t, conn, stream.DeadSubject("d2m.chunks"))
	if len(dead) != 1 || !strings.Contains(ev.String(), `unknown index_kind \"pictures\"`) {
		t.Errorf("dead letters %q; events:\n%s", dead, ev.String())
	}
}
