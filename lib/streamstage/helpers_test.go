package streamstage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
	"github.com/nats-io/nats.go/jetstream"
)

// syncBuffer collects events from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func connect(t *testing.T, c *streamtest.Cluster, subject string) (*stream.Conn, stream.Endpoint) {
	t.Helper()
	ep, err := stream.Parse("--to", c.URL(subject))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := stream.Connect(ep, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn, ep
}

func writeTree(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	writeTreeAt(t, root, files)
	return root
}

// scanTo publishes the documents of root on subject, as dir2mcp-scan --to.
func scanTo(t *testing.T, conn *stream.Conn, subject, root string) int {
	t.Helper()
	ctx := context.Background()
	p := &DocPublisher{Conn: conn, Subject: subject}
	if err := p.Open(ctx); err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err := indexer.Scan(ctx, config.Default(), indexer.ScanInput{Root: root, Dir: state.Resolve(root, t.TempDir())},
		func(d record.Document) error { n++; return p.Publish(ctx, d) })
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return n
}

func extractWorker(conn *stream.Conn, in, out string, ev *events.Emitter) *Extract {
	return &Extract{
		Work:      stream.Work{Conn: conn, Subject: in, Durable: "extract", AckWait: 2 * time.Second, IdleExit: true},
		Out:       out,
		Extractor: &indexer.Extractor{Config: config.Default(), Events: ev},
		Events:    ev,
	}
}

// messages returns the bodies stored on subject, in stream order.
func messages(t *testing.T, conn *stream.Conn, subject string) [][]byte {
	t.Helper()
	ctx := context.Background()
	name, err := conn.JS.StreamNameBySubject(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := conn.JS.OrderedConsumer(ctx, name, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for n := info.NumPending; n > 0; {
		b, err := cons.Fetch(int(n), jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		for m := range b.Messages() {
			out = append(out, m.Data())
			got++
		}
		if got == 0 {
			break
		}
		n -= uint64(got)
	}
	return out
}

func removeAll(dir string) error { return os.RemoveAll(dir) }

func writeTreeAt(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
