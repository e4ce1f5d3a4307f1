package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// BenchmarkSnippets times the snippets of a search (focus on each hit's
// chunk) for the gostd symbol sample queries, the hits being each query's
// ten best BM25 chunks. The index is DIR2MCP_BENCH_STATE's, or one built
// of a few packages of GOROOT/src.
func BenchmarkSnippets(b *testing.B) {
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
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "eval", "gostd", "symbol.sample.queries.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	type job struct {
		spec  focusSpec
		metas []store.ChunkMeta
	}
	kw, err := postings.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var jobs []job
	e := &Engine{Store: st}
	for _, ln := range strings.Split(string(data), "\n") {
		_, text, ok := strings.Cut(ln, "\t")
		if !ok {
			continue
		}
		q := lexical.Parse(text)
		m, weight := e.lexicalMatch(kw, q.Terms)
		lex, err := e.keywordSearch(ctx, kw, 0, m, store.ChunkFilter{}, 10)
		if err != nil {
			b.Fatal(err)
		}
		var ids []int64
		for _, s := range lex {
			ids = append(ids, s.ID)
		}
		metas, err := st.ChunkMetas(ctx, ids)
		if err != nil {
			b.Fatal(err)
		}
		j := job{spec: newFocusSpec(q, weight)}
		for _, id := range ids {
			j.metas = append(j.metas, metas[id])
		}
		jobs = append(jobs, j)
	}
	if p := os.Getenv("DIR2MCP_BENCH_CPUPROFILE"); p != "" { // the timed loop alone
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		j := jobs[i%len(jobs)]
		for _, m := range j.metas {
			j.spec.code = m.IndexKind == record.KindCode
			focus(m.Text, m.Span, m.Lines, j.spec)
		}
	}
}
