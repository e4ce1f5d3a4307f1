package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
	"github.com/nats-io/nats.go/jetstream"
)

// natsCorpus writes n generated files (a quarter Go code, the rest
// markdown and text) of words drawn from a shared vocabulary, so searches
// rank by real term statistics rather than ties.
func natsCorpus(t *testing.T, n int) (root string, vocab []string) {
	t.Helper()
	root = t.TempDir()
	rng := rand.New(rand.NewPCG(12, 34))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "qu", "ze", "da", "po", "fi", "gu", "he"}
	for range 1500 {
		w := ""
		for range 2 + rng.IntN(3) {
			w += syll[rng.IntN(len(syll))]
		}
		vocab = append(vocab, w)
	}
	for i := range n {
		var b strings.Builder
		var name string
		switch i % 4 {
		case 0:
			name = fmt.Sprintf("src/pkg%02d/f%04d.go", i%37, i)
			fmt.Fprintf(&b, "package pkg%02d\n\n", i%37)
			for j := range 3 + rng.IntN(5) {
				fmt.Fprintf(&b, "// %s %s %s\nfunc %s%d() string { return %q }\n\n", vocab[rng.IntN(len(vocab))],
					vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], strings.ToUpper(vocab[rng.IntN(len(vocab))][:1]), j,
					vocab[rng.IntN(len(vocab))])
			}
		case 1, 2:
			name = fmt.Sprintf("notes/d%02d/n%04d.md", i%23, i)
			fmt.Fprintf(&b, "# %s %s\n\n", vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))])
			for range 3 + rng.IntN(12) {
				for range 6 + rng.IntN(10) {
					b.WriteString(vocab[rng.IntN(len(vocab))] + " ")
				}
				b.WriteString("\n")
			}
		default:
			name = fmt.Sprintf("logs/l%04d.txt", i)
			for range 2 + rng.IntN(6) {
				for range 5 + rng.IntN(8) {
					b.WriteString(vocab[rng.IntN(len(vocab))] + " ")
				}
				b.WriteString("\n")
			}
		}
		writeFile(t, filepath.Join(root, name), b.String())
	}
	return root, vocab
}

// indexSnapshot lists an index's live documents and chunks independent of
// ids (a replica numbers its rows in its own order).
func indexSnapshot(t *testing.T, stateDir string) (docs, chunks []string) {
	t.Helper()
	st, err := store.Open(context.Background(), stateDir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q := func(sql string, out *[]string) {
		rows, err := st.ReadDB().Query(sql)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var a, b, c, d, e string
			if err := rows.Scan(&a, &b, &c, &d, &e); err != nil {
				t.Fatal(err)
			}
			*out = append(*out, strings.Join([]string{a, b, c, d, e}, "|"))
		}
	}
	q(`SELECT rel_path, status, COALESCE(error_code,''), content_hash, title FROM documents WHERE deleted = 0`, &docs)
	q(`SELECT d.rel_path, CAST(c.ordinal AS TEXT), c.text_hash, c.embedding_status, c.index_kind
		FROM chunks c JOIN documents d ON d.doc_id = c.doc_id WHERE c.deleted = 0`, &chunks)
	sort.Strings(docs)
	sort.Strings(chunks)
	return docs, chunks
}

type replicaStats struct {
	Documents struct {
		Total int64 `json:"total"`
	} `json:"documents"`
	Indexing struct {
		ChunksTotal int64 `json:"chunks_total"`
		EmbeddedOK  int64 `json:"embedded_ok"`
		Pending     int64 `json:"pending"`
	} `json:"indexing"`
	Replica *struct {
		AppliedSeq uint64 `json:"applied_seq"`
		Lag        uint64 `json:"lag"`
		Reread     int64  `json:"reread"`
		Received   int64  `json:"received"`
		CaughtUp   bool   `json:"caught_up"`
	} `json:"replica"`
}

func stats(c *mcp) replicaStats {
	c.t.Helper()
	r := c.tool("dir2mcp.stats", map[string]any{})
	var s replicaStats
	if err := json.Unmarshal(r.StructuredContent, &s); err != nil {
		c.t.Fatal(err)
	}
	return s
}

// topTen is a search's hits as path:lines, in rank order.
func topTen(c *mcp, q string) []string {
	var out []string
	for _, h := range c.search(q, map[string]any{"k": 10}).Hits {
		out = append(out, fmt.Sprintf("%s:%d-%d", h.RelPath, h.Span.StartLine, h.Span.EndLine))
	}
	return out
}

// The acceptance run of docs/scaling.md: a 3-node JetStream cluster on
// loopback, one scanner, two extract and two embed workers, two serve
// replicas. One worker of each kind is killed with SIGKILL mid-stream and
// one NATS node is stopped; both replicas end up holding exactly the
// documents and chunks of a single-machine `dir2mcp index` of the same tree
// and answer 50 queries with the same top 10.
func TestNATSClusterPipeline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a NATS cluster and nine processes")
	}
	root, vocab := natsCorpus(t, 2000)
	local := t.TempDir()
	idx := start(t, "dir2mcp", nil, "index", "--dir", root, "--state-dir", local, "--json")
	idx.wait("index_complete", 5*time.Minute)
	wantDocs, wantChunks := indexSnapshot(t, local)

	cluster := streamtest.Start(t, 3)
	docs, chunks := cluster.URL("d2m.docs"), cluster.URL("d2m.chunks")
	workDir := t.TempDir() // workers have no tree and no index of their own
	var replicas []*mcp
	var replicaProcs []*proc
	var replicaDirs []string
	serveReplica := func(stateDir string) (*proc, *mcp) {
		p := start(t, "dir2mcp-serve", nil, "--dir", t.TempDir(), "--state-dir", stateDir, "--listen", "127.0.0.1:0",
			"--json", "--from", chunks)
		c := newMCP(t, p.connect())
		c.initialize()
		return p, c
	}
	for range 2 {
		dir := t.TempDir()
		p, c := serveReplica(dir)
		replicas, replicaProcs, replicaDirs = append(replicas, c), append(replicaProcs, p), append(replicaDirs, dir)
	}
	worker := func(name, from, to string) *proc {
		args := []string{"--dir", workDir, "--state-dir", t.TempDir(), "--json", "--from", from, "--ack-wait", "3s"}
		if to != "" {
			args = append(args, "--to", to)
		}
		return start(t, name, nil, args...)
	}
	ex1, em1 := worker("dir2mcp-extract", docs, chunks), worker("dir2mcp-embed", chunks, "")
	ex2 := worker("dir2mcp-extract", docs, chunks)
	// A malformed record ahead of the documents: parked, never blocking.
	conn := natsConn(t, docs)
	if _, err := conn.JS.Publish(context.Background(), "d2m.docs", []byte(`{"type":"document","v":"9.0"}`)); err != nil {
		t.Fatal(err)
	}
	worker("dir2mcp-embed", chunks, "")
	scan := start(t, "dir2mcp-scan", nil, "--dir", root, "--state-dir", t.TempDir(), "--json", "--to", docs)
	select {
	case err := <-scan.done:
		if err != nil || !strings.Contains(scan.stderr.String(), `"new":2000`) {
			t.Fatalf("scan: %v\n%s", err, scan.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("scan did not finish within 2 minutes")
	}

	// Mid-stream: the first replica has seen chunks but not all of them.
	deadline := time.Now().Add(time.Minute)
	for s := stats(replicas[0]); s.Indexing.ChunksTotal == 0; s = stats(replicas[0]) {
		if time.Now().After(deadline) {
			t.Fatalf("no chunks reached the replica within a minute: %+v\nextract stderr:\n%s", s, ex1.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	s := stats(replicas[0])
	t.Logf("killing one extract and one embed worker at %d/%d chunks (%d embedded), stopping NATS node 3",
		s.Indexing.ChunksTotal, len(wantChunks), s.Indexing.EmbeddedOK)
	for _, p := range []*proc{ex1, em1} {
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	cluster.Stop(2)

	for i, c := range replicas {
		converge(t, i+1, c, len(wantDocs), len(wantChunks))
	}
	logRedeliveries(t, conn, map[string]string{"d2m_docs": "dir2mcp-extract", "d2m_chunks": "dir2mcp-embed"})
	parked := ex1.stderr.String() + ex2.stderr.String()
	if strings.Count(parked, `"event":"record_parked"`) != 1 || !strings.Contains(parked, `"code":"RECORD_INVALID"`) {
		t.Errorf("want one record_parked event (RECORD_INVALID) from the extract workers:\n%.2000s", parked)
	}
	if info, err := conn.JS.Stream(context.Background(), "d2m_docs"); err != nil {
		t.Fatal(err)
	} else if st, err := info.Info(context.Background(), jetstream.WithSubjectFilter(stream.DeadSubject("d2m.docs"))); err != nil || st.State.Subjects[stream.DeadSubject("d2m.docs")] != 1 {
		t.Errorf("dead-letter subject: %v %v, want the one bad record", st.State.Subjects, err)
	}
	for i, c := range replicas {
		resp, err := http.Get(strings.TrimSuffix(c.srv.url, "/mcp") + "/health")
		if err != nil {
			t.Fatal(err)
		}
		var h struct {
			Replica *struct {
				Lag      *uint64 `json:"lag"`
				CaughtUp bool    `json:"caught_up"`
			} `json:"replica"`
		}
		json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if h.Replica == nil || h.Replica.Lag == nil || *h.Replica.Lag != 0 || !h.Replica.CaughtUp {
			t.Errorf("replica %d /health does not report lag 0: %+v", i+1, h.Replica)
		}
	}
	for i, c := range replicas {
		d, ch := indexSnapshot(t, statsDir(t, c))
		if strings.Join(d, "\n") != strings.Join(wantDocs, "\n") {
			t.Errorf("replica %d documents differ from the local index (%d vs %d)", i+1, len(d), len(wantDocs))
		}
		if strings.Join(ch, "\n") != strings.Join(wantChunks, "\n") {
			t.Errorf("replica %d chunks differ from the local index (%d vs %d)", i+1, len(ch), len(wantChunks))
		}
	}

	ref := start(t, "dir2mcp-serve", nil, "--dir", root, "--state-dir", local, "--listen", "127.0.0.1:0", "--json")
	rc := newMCP(t, ref.connect())
	rc.initialize()
	rng := rand.New(rand.NewPCG(5, 6))
	answered := 0
	for q := range 50 {
		query := vocab[rng.IntN(len(vocab))] + " " + vocab[rng.IntN(len(vocab))]
		if q%3 == 0 {
			query += " " + vocab[rng.IntN(len(vocab))]
		}
		want := topTen(rc, query)
		if len(want) > 0 {
			answered++
		}
		for i, c := range replicas {
			if got := topTen(c, query); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("query %q: replica %d top 10\n  %v\nlocal\n  %v", query, i+1, got, want)
			}
		}
	}
	// open_file on a replica, which has no copy of the tree: the stored
	// copy, the same lines, and it says so.
	for _, rel := range []string{"src/pkg00/f0000.go", "notes/d01/n0001.md"} {
		want := rc.tool("dir2mcp.open_file", map[string]any{"rel_path": rel})
		for i, c := range replicas {
			got := c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel})
			var g, w struct {
				Content string `json:"content"`
				Stored  bool   `json:"stored"`
			}
			json.Unmarshal(got.StructuredContent, &g)
			json.Unmarshal(want.StructuredContent, &w)
			if got.IsError || !g.Stored || g.Content != w.Content || w.Content == "" ||
				!strings.Contains(got.Content[0].Text, "not on this host") {
				t.Errorf("replica %d open_file %s: error %v stored %v, content equal %v\n%s", i+1, rel, got.IsError, g.Stored,
					g.Content == w.Content, got.Content[0].Text)
			}
		}
	}
	if answered < 45 {
		t.Errorf("only %d of 50 queries had hits: the comparison says little", answered)
	}

	// Replica 1 stops; the tree and the stream move on (a scan against
	// replica 2's index sends 20 new files, the rest unchanged); restarted,
	// replica 1 catches up without re-reading what it had applied.
	replicaProcs[0].stop()
	applied := indexSetting(t, replicaDirs[0], "stream_seq:d2m_chunks")
	for i := range 20 {
		writeFile(t, filepath.Join(root, fmt.Sprintf("late/l%02d.md", i)), fmt.Sprintf("# Late %d\n\n%s %s\n", i, vocab[i], vocab[i+1]))
	}
	rescan := start(t, "dir2mcp-scan", nil, "--dir", root, "--state-dir", replicaDirs[1], "--json", "--to", docs)
	if err := <-rescan.done; err != nil || !strings.Contains(rescan.stderr.String(), `"new":20`) {
		t.Fatalf("rescan: %v\n%s", err, rescan.stderr.String())
	}
	converge(t, 2, replicas[1], len(wantDocs)+20, len(wantChunks)+20)
	_, again := serveReplica(replicaDirs[0])
	s = converge(t, 1, again, len(wantDocs)+20, len(wantChunks)+20)
	if s.Replica.Reread != 0 || s.Replica.Received == 0 || s.Replica.AppliedSeq <= applied {
		t.Errorf("restarted replica: %+v (had applied through %d)", *s.Replica, applied)
	}
	t.Logf("restarted replica resumed after sequence %d: received %d records, re-read %d", applied, s.Replica.Received, s.Replica.Reread)
}

// converge waits until replica n holds docs documents and chunks chunks,
// all embedded, with nothing left on the stream; a replica never re-reads.
func converge(t *testing.T, n int, c *mcp, docs, chunks int) replicaStats {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		s := stats(c)
		if s.Replica != nil && s.Replica.CaughtUp && s.Indexing.Pending == 0 &&
			s.Documents.Total == int64(docs) && s.Indexing.ChunksTotal == int64(chunks) {
			if s.Replica.Reread != 0 {
				t.Errorf("replica %d re-read %d records", n, s.Replica.Reread)
			}
			return s
		}
		if time.Now().After(deadline) {
			js, _ := json.Marshal(s)
			t.Fatalf("replica %d did not converge: %s (want %d documents, %d chunks)", n, js, docs, chunks)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// indexSetting reads a settings value of a state dir's index.
func indexSetting(t *testing.T, stateDir, key string) uint64 {
	t.Helper()
	st, err := store.Open(context.Background(), stateDir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, err := st.Setting(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.ParseUint(v, 10, 64)
	return n
}

// statsDir is the state dir a server reports in stats.
func statsDir(t *testing.T, c *mcp) string {
	t.Helper()
	r := c.tool("dir2mcp.stats", map[string]any{})
	var s struct {
		StateDir string `json:"state_dir"`
	}
	if err := json.Unmarshal(r.StructuredContent, &s); err != nil || s.StateDir == "" {
		t.Fatalf("stats state_dir: %v", err)
	}
	return s.StateDir
}

// natsConn connects the test itself to the cluster.
func natsConn(t *testing.T, url string) *stream.Conn {
	t.Helper()
	ep, err := stream.Parse("--from", url)
	if err != nil {
		t.Fatal(err)
	}
	c, err := stream.Connect(ep, "e2e")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Ensure(context.Background(), ep.Subject); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// logRedeliveries reports how many deliveries each consumer made: more than
// the records on the stream means the killed workers' records were
// redelivered (a worker killed between batches holds none).
func logRedeliveries(t *testing.T, c *stream.Conn, consumers map[string]string) {
	for name, durable := range consumers {
		cons, err := c.JS.Consumer(context.Background(), name, durable)
		if err != nil {
			t.Fatal(err)
		}
		info, err := cons.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s/%s: %d delivered, %d redelivered, %d pending, %d unacknowledged", name, durable,
			info.Delivered.Consumer, info.NumRedelivered, info.NumPending, info.NumAckPending)
	}
}
