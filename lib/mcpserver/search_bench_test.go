package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSearchPath is the search hot path `dir2mcp serve` runs, on an
// index of the Go standard library's net tree (DIR2MCP_BENCH_CORPUS names
// another directory) built with the default offline configuration:
// "engine" is retrieve.Engine.Search alone; "mcp" is dir2mcp.search called
// through the official go-sdk client over an in-memory transport, so it
// adds everything the MCP layer does (argument checks, the controls:
// scope, redaction, audit record; the result's JSON both ways) but HTTP.
// "mcp-layer" is "mcp" with the engine's answers computed beforehand, so
// it times the MCP layer alone (what a search call costs besides
// retrieval); BenchmarkSearchHTTP adds the HTTP layer to it.
// Each reports the median and 99th-percentile latency of the gostd
// doc-sentence queries and the CPU time per call. DIR2MCP_BENCH_STATE
// names a directory that keeps the state dir between runs (the second
// run's index is a no-op). The index is made with the configuration the
// CLI would load for the corpus (its .dir2mcp.yaml, DIR2MCP_* variables),
// and the chunk refs are read at once after it, as a server does.
func BenchmarkSearchPath(b *testing.B) {
	root := os.Getenv("DIR2MCP_BENCH_CORPUS")
	if root == "" {
		root = filepath.Join(runtime.GOROOT(), "src", "net")
	}
	s := benchServer(b, root)
	qs := benchQueries(b)
	ctx := context.Background()
	b.Run("engine", func(b *testing.B) {
		run(b, qs, func(q string) {
			if _, err := s.Engine.Search(ctx, retrieve.Request{Query: q, K: 10}); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("mcp", func(b *testing.B) {
		cs := connect(b, s)
		run(b, qs, func(q string) { benchCall(b, cs, q) })
	})
	b.Run("mcp-layer", func(b *testing.B) {
		s.searchFunc = precomputed(b, s.Engine, qs)
		defer func() { s.searchFunc = nil }()
		cs := connect(b, s)
		run(b, qs, func(q string) { benchCall(b, cs, q) })
	})
}

// benchCall calls dir2mcp.search for q with k=10 on cs.
func benchCall(b *testing.B, cs *mcp.ClientSession, q string) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.search", Arguments: map[string]any{"query": q, "k": 10}})
	if err != nil || res.IsError {
		b.Fatalf("search %q: %v %+v", q, err, res)
	}
}

// run times search over qs in turn, after a warm-up, and reports the median
// latency (p50-ms) and the process's CPU time per search (cpu-ms/op): what
// a loaded machine's latency follows. DIR2MCP_BENCH_CPUPROFILE=FILE writes a
// CPU profile of the timed calls alone ("%" in FILE stands for the
// benchmark's name).
func run(b *testing.B, qs []string, search func(q string)) {
	for _, q := range qs[:10] { // warm caches
		search(q)
	}
	var took []time.Duration
	if p := os.Getenv("DIR2MCP_BENCH_CPUPROFILE"); p != "" {
		// The timed calls alone (go test -cpuprofile also takes the
		// index run and the warm-up).
		f, err := os.Create(strings.ReplaceAll(p, "%", strings.ReplaceAll(b.Name(), "/", "-")))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		search(qs[i%len(qs)])
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100])/1e6, "p99-ms")
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/float64(len(took)), "cpu-ms/op")
}

// precomputed answers each of qs as eng does (k=10, no filters) from a
// table filled beforehand; every answer is a fresh copy, as the caller may
// change its hits.
func precomputed(b *testing.B, eng *retrieve.Engine, qs []string) func(context.Context, retrieve.Request) (retrieve.Result, error) {
	b.Helper()
	table := map[string]retrieve.Result{}
	for _, q := range qs {
		res, err := eng.Search(context.Background(), retrieve.Request{Query: q, K: 10})
		if err != nil {
			b.Fatal(err)
		}
		table[q] = res
	}
	return func(ctx context.Context, req retrieve.Request) (retrieve.Result, error) {
		res, ok := table[req.Query]
		if !ok || req.K != 10 {
			return eng.Search(ctx, req)
		}
		res.Hits = slices.Clone(res.Hits)
		return res, nil
	}
}

// benchServer indexes root offline into a state dir of its own and returns
// a server over it configured as `dir2mcp serve` is by default (offline
// embedders, redaction, audit log).
func benchServer(b *testing.B, root string) *Server {
	b.Helper()
	ctx := context.Background()
	base := os.Getenv("DIR2MCP_BENCH_STATE")
	if base == "" {
		base = b.TempDir()
	}
	dir := state.Resolve(root, base)
	if err := dir.Ensure(); err != nil {
		b.Fatal(err)
	}
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	// The configuration the CLI would use for root (its .dir2mcp.yaml and
	// DIR2MCP_* overrides): a kept state dir is indexed again with the
	// settings that made it (ingest.gitignore off for the Linux source, say)
	// instead of the defaults, which could drop most of it.
	cfg, _, err := config.Load(config.LoadOptions{Dir: root})
	if err != nil {
		b.Fatal(err)
	}
	embs, err := embedders.Open(cfg)
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("DIR2MCP_BENCH_NOINDEX") == "" { // set: the state dir is known complete (runs under valgrind)
		if err := (&indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs}).Run(ctx); err != nil {
			b.Fatal(err)
		}
	}
	eng := retrieve.Open(st, dir, cfg, embs, time.Hour)
	b.Cleanup(eng.Close)
	eng.WaitLoaded()
	if err := eng.WarmRefs(ctx); err != nil { // as a server does after each index run
		b.Fatal(err)
	}
	rfs, err := rootfs.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		b.Fatal(err)
	}
	al, err := audit.Open(audit.Options{Path: dir.Join(state.AuditLog), MaxBytes: cfg.Audit.MaxBytes, Keep: cfg.Audit.Keep})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { al.Close() })
	return &Server{Engine: eng, Store: st, Root: rfs, Dir: dir, Exclude: ex, Config: cfg, Audit: al}
}

// benchQueries are the gostd doc-sentence sample queries (testdata/eval).
func benchQueries(b *testing.B) []string {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "eval", "gostd", "symbol.sample.queries.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	var qs []string
	for _, ln := range strings.Split(string(data), "\n") {
		if _, q, ok := strings.Cut(ln, "\t"); ok && q != "" {
			qs = append(qs, q)
		}
	}
	if len(qs) < 10 {
		b.Fatalf("%d queries", len(qs))
	}
	if n, _ := strconv.Atoi(os.Getenv("DIR2MCP_BENCH_NQ")); n >= 10 && n < len(qs) {
		qs = qs[:n] // fewer queries: a shorter set-up (precomputed answers)
	}
	return qs
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
