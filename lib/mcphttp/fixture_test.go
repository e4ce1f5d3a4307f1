package mcphttp

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/dir2mcp/dir2mcp/lib/x402/x402test"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testNetwork = "eip155:84532"

// index indexes root (offline, hashing embedder) into a state dir of its
// own and returns a factory of MCP servers over that index.
func index(tb testing.TB, root string) func() *mcpserver.Server {
	tb.Helper()
	ctx := context.Background()
	dir := state.Resolve(root, tb.TempDir())
	if err := dir.Ensure(); err != nil {
		tb.Fatal(err)
	}
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	h, _ := hashing.New(256)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	cfg := config.Default()
	if err := (&indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs}).Run(ctx); err != nil {
		tb.Fatal(err)
	}
	eng := retrieve.Open(st, dir, cfg, embs, time.Hour)
	tb.Cleanup(eng.Close)
	eng.WaitLoaded()
	rfs, err := rootfs.Open(root)
	if err != nil {
		tb.Fatal(err)
	}
	ex, _ := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	return func() *mcpserver.Server {
		return &mcpserver.Server{Engine: eng, Store: st, Root: rfs, Dir: dir, Exclude: ex, Config: cfg}
	}
}

// paid is a server with x402 payments over a fake facilitator, counting
// the tool calls that get past the payment gate.
type paid struct {
	s    *mcpserver.Server
	fac  *x402test.Facilitator
	gate *x402.Gate
	runs atomic.Int64
}

// pay enables payments in mode (gated: the tools mode on charges) on s.
func pay(tb testing.TB, s *mcpserver.Server, mode string, gated ...string) *paid {
	tb.Helper()
	p := &paid{s: s, fac: x402test.New(testNetwork)}
	tb.Cleanup(p.fac.Close)
	// Inside the payment middleware: sees only calls that reach the tools.
	s.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				p.runs.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	g, err := x402.Open(x402.Options{Config: p.fac.Config(mode, gated...), MCPPath: "/mcp", Dir: state.Dir{Path: tb.TempDir()}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close() })
	if err := s.EnablePayments(g); err != nil {
		tb.Fatal(err)
	}
	p.gate = g
	return p
}

// handler serves s over HTTP with payments when p is set.
func handler(tb testing.TB, s *mcpserver.Server, g *x402.Gate) *Handler {
	h := New(s.MCP(), Options{Payments: g})
	tb.Cleanup(h.Close)
	return h
}
