package indexer

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// BenchmarkEmbedStageMistral indexes 100 markdown files (~2000 chunks of
// up to 2500 bytes) with the Mistral embedders against a fake Mistral that
// answers every request after 50 ms: the whole pipeline (scan, extract,
// token-budgeted batches, requests in flight, vector files), reported as
// chunks/s overall and per in-flight request slot (the Mistral client's 4).
func BenchmarkEmbedStageMistral(b *testing.B) {
	fake := mistraltest.New()
	defer fake.Close()
	fake.Latency = 50 * time.Millisecond
	cfg := config.Default()
	cfg.Mistral.APIKey = config.Secret{Value: mistraltest.Key, Source: "env:MISTRAL_API_KEY"}
	cfg.Mistral.BaseURL = fake.URL
	embs, err := embedders.Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	para := strings.Repeat("The indexer splits documents into chunks and embeds them in batches. ", 36) + "\n\n"
	var chunks int64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		root := b.TempDir()
		for f := range 100 {
			var doc strings.Builder
			fmt.Fprintf(&doc, "# Document %d\n\n", f)
			for p := range 20 {
				fmt.Fprintf(&doc, "Paragraph %d of document %d. %s", p, f, para)
			}
			if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("doc%03d.md", f)), []byte(doc.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		dir := state.Resolve(root, "")
		dir.Ensure()
		st, err := store.Open(context.Background(), dir.Path, store.Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		p := &Progress{}
		j := &Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs, Progress: p, Events: events.NewJSON(io.Discard)}
		b.StartTimer()
		start := time.Now()
		if err := j.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		chunks += p.Embedded.Load()
		st.Close()
	}
	perSec := float64(chunks) / elapsed.Seconds()
	b.ReportMetric(float64(chunks)/float64(b.N), "chunks/op")
	b.ReportMetric(perSec, "chunks/s")
	b.ReportMetric(perSec/4, "chunks/s/slot")
}
