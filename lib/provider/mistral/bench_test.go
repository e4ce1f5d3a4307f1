package mistral

import (
	"context"
	"strings"
	"testing"
	"time"
)

// BenchmarkEmbedThroughput embeds realistic 2500-byte chunks against a fake
// Mistral that answers every request after 50 ms, showing what batching
// (token-budgeted batches) and concurrency (4 requests in flight) buy:
// chunks/s overall and per in-flight request slot.
func BenchmarkEmbedThroughput(b *testing.B) {
	f := newFake(b)
	f.Latency = 50 * time.Millisecond
	c := f.client(b, Options{Concurrency: 4})
	e, err := c.Embedder("mistral-embed", 0)
	if err != nil {
		b.Fatal(err)
	}
	para := strings.Repeat("The indexer splits documents into chunks and embeds them. ", 50)[:2500]
	in := inputs(1000, func(i int) string { return para })
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := e.Embed(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	perSec := float64(len(in)*b.N) / time.Since(start).Seconds()
	b.ReportMetric(perSec, "chunks/s")
	b.ReportMetric(perSec/4, "chunks/s/slot")
}
