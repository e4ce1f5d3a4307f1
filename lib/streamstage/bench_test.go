package streamstage

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
)

// BenchmarkEmbedWorkers measures embed workers on a provider-bound load:
// the fake Mistral answers every request after 50 ms; 1 and 4 workers drain
// the same number of chunk records, side by side in one run. Reported:
// chunks/s of each and the speed-up (docs/scaling.md).
func BenchmarkEmbedWorkers(b *testing.B) {
	const chunks, batch = 640, 16
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
	c := streamtest.Start(b, 1)
	rate := map[int]float64{}
	for i := 0; i < b.N; i++ {
		for _, workers := range []int{1, 4} {
			subject := fmt.Sprintf("bench%d_%d.chunks", i, workers)
			ep, err := stream.Parse("--from", c.URL(subject))
			if err != nil {
				b.Fatal(err)
			}
			conn, err := stream.Connect(ep, "bench")
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if _, err := conn.Ensure(ctx, subject); err != nil {
				b.Fatal(err)
			}
			var outs []stream.Out
			for n := range chunks {
				ch := record.NewChunk()
				ch.RelPath, ch.IndexKind, ch.Ordinal = fmt.Sprintf("doc%03d.md", n/8), record.KindText, n%8
				ch.Text = fmt.Sprintf("Paragraph %d: the indexer splits documents into chunks and embeds them in batches.", n)
				outs = append(outs, stream.Out{Subject: subject, Kind: kindChunk, Record: ch})
			}
			if err := conn.Publish(ctx, outs...); err != nil {
				b.Fatal(err)
			}
			ws := make([]*Embed, workers)
			var wg sync.WaitGroup
			start := time.Now()
			for w := range ws {
				ws[w] = &Embed{Work: stream.Work{Conn: conn, Subject: subject, Durable: "embed", AckWait: 30 * time.Second, Batch: batch},
					Out: VectorSubject(subject), Embedders: embs, Events: events.Discard()}
				wg.Add(1)
				go func() { defer wg.Done(); ws[w].Run(ctx) }()
			}
			for done := int64(0); done < chunks; {
				time.Sleep(5 * time.Millisecond)
				done = 0
				for _, w := range ws {
					done += w.Embedded()
				}
			}
			elapsed := time.Since(start)
			cancel()
			wg.Wait()
			conn.Close()
			rate[workers] += float64(chunks) / elapsed.Seconds() / float64(b.N)
		}
	}
	b.ReportMetric(rate[1], "chunks/s-1worker")
	b.ReportMetric(rate[4], "chunks/s-4workers")
	b.ReportMetric(rate[4]/rate[1], "speedup")
}
