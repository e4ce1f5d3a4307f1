package prof

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed/catalog"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	st, err := store.Open(ctx, "/tmp/gostate", store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	cfg := config.Default()
	embs, _ := catalog.Open(cfg)
	e := retrieve.Open(st, state.Dir{Path: "/tmp/gostate"}, cfg, embs, 0)
	e.WaitLoaded()
	time.Sleep(time.Second)
	raw, _ := os.ReadFile("/work/main/testdata/eval/gostd/symbol.sample.queries.tsv")
	var qs []string
	for _, ln := range strings.Split(string(raw), "\n") {
		if _, q, ok := strings.Cut(ln, "\t"); ok {
			qs = append(qs, q)
		}
	}
	for _, q := range qs[:20] {
		e.Search(ctx, retrieve.Request{Query: q, K: 10})
	}
	for _, mode := range []string{"lexical", "vector", "hybrid"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := e.Search(ctx, retrieve.Request{Query: qs[i%len(qs)], K: 10, Mode: mode}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
