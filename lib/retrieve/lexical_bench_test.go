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
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// BenchmarkLexicalChannel times the full-text queries one search runs (the
// BM25 channel, the exact-identifier and the definition channel) per eval
// query of the gostd sets, side by side on one index:
//
//   - fts5: ranked by FTS5's bm25(), which counts every phrase's rows on
//     every query (the lexical channel before the cached counts);
//   - cold: LexicalSearch on a store just opened, so counts are taken as
//     queries first need them;
//   - warm: LexicalSearch at rest, every count cached;
//   - nocache: LexicalSearch with nothing cached, as while writes keep
//     changing the generation (counts taken as bm25() takes them, lengths
//     read from %_docsize).
//
// The index is the state directory in DIR2MCP_BENCH_STATE (e.g. one of the
// Go tree built by `dir2mcp index`), or else one built here of a few
// packages of GOROOT/src.
func BenchmarkLexicalChannel(b *testing.B) {
	ctx := context.Background()
	dir := os.Getenv("DIR2MCP_BENCH_STATE")
	if dir == "" {
		dir = benchIndex(b)
	}
	open := func() *store.Store {
		st, err := store.Open(ctx, dir, store.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	st := open()
	defer st.Close()
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
	// Each query's expressions, as Search builds them.
	e := &Engine{Store: st}
	var exprs [][]lexical.Expr
	for _, text := range qs {
		q := lexical.Parse(text)
		m, _ := e.lexicalMatch(ctx, q.Terms)
		x := []lexical.Expr{m, q.IdentMatch()}
		if q.Name != "" {
			x = append(x, lexical.InColumns(lexical.Term(strings.ToLower(q.Name)), lexical.ColTitle))
		}
		exprs = append(exprs, x)
	}
	type searchFn func(context.Context, lexical.Expr, store.ChunkFilter, store.FTSWeights, int) ([]store.Scored, error)
	run := func(fn searchFn, x []lexical.Expr) time.Duration {
		t0 := time.Now()
		for _, m := range x {
			if _, err := fn(ctx, m, store.ChunkFilter{}, store.DefaultFTSWeights, 100); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(t0)
	}
	for _, x := range exprs { // warm st's counts (and the page cache)
		run(st.LexicalSearch, x)
	}
	// The variants run query by query in turn, so each sees the same load.
	names := []string{"fts5", "cold", "warm", "nocache"}
	lat := make([][]time.Duration, len(names))
	none := open()
	defer none.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cold := open()
		for l := range lat {
			lat[l] = lat[l][:0]
		}
		for _, x := range exprs {
			b.StopTimer()
			none.DropSearchCaches() // as after a write
			b.StartTimer()
			for l, fn := range []searchFn{st.LexicalSearchFTS5, cold.LexicalSearch, st.LexicalSearch, none.LexicalSearch} {
				lat[l] = append(lat[l], run(fn, x))
			}
		}
		cold.Close()
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	for l, name := range names {
		var sum time.Duration
		for _, d := range lat[l] {
			sum += d
		}
		sort.Slice(lat[l], func(i, j int) bool { return lat[l][i] < lat[l][j] })
		b.ReportMetric(ms(sum)/float64(len(lat[l])), name+"-ms/q")
		b.ReportMetric(ms(lat[l][len(lat[l])/2]), name+"-p50-ms")
	}
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
