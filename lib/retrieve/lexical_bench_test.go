package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// BenchmarkKeywordChannel times the keyword queries one search runs (the
// BM25 channel, the exact-identifier and the definition channel) per eval
// query of the gostd sets, on the keyword index (lib/postings) of a state
// dir: ms per query (mean and median), and the hits the channel found.
//
// The index is the state directory in DIR2MCP_BENCH_STATE (e.g. one of the
// Go tree built by `dir2mcp index`), or else one built here of a few
// packages of GOROOT/src. `scripts/bench -baseline REF` measures whole
// searches side by side with an older build (the FTS5 channel before
// lib/postings).
func BenchmarkKeywordChannel(b *testing.B) {
	ctx := context.Background()
	dir := os.Getenv("DIR2MCP_BENCH_STATE")
	if dir == "" {
		dir = benchIndex(b)
	}
	st, err := store.Open(ctx, dir, store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	kw, err := postings.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, set := range []string{"symbol", "package"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "eval", "gostd", set+".sample.queries.tsv"))
		if err != nil {
			b.Fatal(err)
		}
		for _, ln := range strings.Split(string(data), "\n") {
			if _, q, ok := strings.Cut(ln, "\t"); ok {
				qs = append(qs, q)
			}
		}
	}
	e := &Engine{Store: st}
	// Each query's expressions, as Search builds them.
	exprs := func() [][]lexical.Expr {
		var out [][]lexical.Expr
		for _, text := range qs {
			q := lexical.Parse(text)
			m, _ := e.lexicalMatch(kw, q.Terms)
			x := []lexical.Expr{m, q.IdentMatch()}
			if q.Name != "" {
				x = append(x, lexical.InColumns(lexical.Term(strings.ToLower(q.Name)), lexical.ColTitle))
			}
			out = append(out, x)
		}
		return out
	}()
	hits := 0
	run := func(x []lexical.Expr) time.Duration {
		t0 := time.Now()
		for _, m := range x {
			h, err := e.keywordSearch(ctx, kw, 0, m, store.ChunkFilter{}, 100)
			if err != nil {
				b.Fatal(err)
			}
			hits += len(h)
		}
		return time.Since(t0)
	}
	for _, x := range exprs { // warm the page cache and the counts
		run(x)
	}
	var lat []time.Duration
	hits = 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, x := range exprs {
			lat = append(lat, run(x))
		}
	}
	b.StopTimer()
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(sum)/1e6/float64(len(lat)), "ms/q")
	b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(hits)/float64(len(lat)), "hits/q")
	b.ReportMetric(0, "ns/op")
}

// benchIndex indexes a few packages of GOROOT/src (text only, hashing
// embedder) into a temporary state directory.
func benchIndex(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	src := filepath.Join(runtime.GOROOT(), "src")
	for _, pkg := range []string{"archive", "bufio", "bytes", "compress", "encoding", "strings", "strconv", "io", "sort", "text"} {
		if err := os.CopyFS(filepath.Join(root, pkg), os.DirFS(filepath.Join(src, pkg))); err != nil {
			b.Skipf("GOROOT/src not readable: %v", err)
		}
	}
	dir := state.Dir{Path: filepath.Join(b.TempDir(), "state")}
	if err := dir.Ensure(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	h, _ := hashing.New(64)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	cfg := config.Default()
	cfg.Ingest.Watch = false
	if err := (&indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs}).Run(ctx); err != nil {
		b.Fatal(err)
	}
	return dir.Path
}
