package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
	"github.com/dir2mcp/dir2mcp/lib/mcphttp"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
)

// BenchmarkSearchHTTP is dir2mcp.search served over Streamable HTTP on
// loopback as `dir2mcp serve` serves it (mcphttp: Host and Origin checks,
// rate limiter, bearer auth, sessions; redaction and the audit log), with
// the engine's answers computed beforehand, so it times what a search call
// costs besides retrieval: the HTTP and MCP layers and the result work.
// "raw" posts the JSON-RPC requests itself and reads the answer's bytes
// (little client CPU beside the server's); "sdk" is the official go-sdk
// client the scale bench uses (decoding the result adds its CPU). The
// corpus and state dir are BenchmarkSearchPath's.
func BenchmarkSearchHTTP(b *testing.B) {
	root := os.Getenv("DIR2MCP_BENCH_CORPUS")
	if root == "" {
		root = filepath.Join(runtime.GOROOT(), "src", "net")
	}
	s := mcpserver.BenchServer(b, root)
	qs := mcpserver.BenchQueries(b)
	s.SetSearchFunc(mcpserver.Precomputed(b, s.Engine, qs))
	const token = "bench-token-0123456789abcdef"
	h := mcphttp.New(s.MCP(), mcphttp.Options{Token: token, Audit: s.Audit, RPS: 20, Burst: 40})
	b.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	url := srv.URL + "/mcp"

	b.Run("raw", func(b *testing.B) {
		w, err := mcpclient.DialWire(context.Background(), mcpclient.Options{URL: url, Token: token}, srv.Client())
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		mcpserver.BenchRun(b, qs, func(q string) {
			qj, _ := json.Marshal(q)
			out, err := w.CallTool(context.Background(), "dir2mcp.search", fmt.Sprintf(`{"query":%s,"k":10}`, qj))
			if err == nil {
				err = mcpclient.CheckStructured(out)
			}
			if err != nil {
				b.Fatalf("search %q: %v", q, err)
			}
		})
	})
	b.Run("sdk", func(b *testing.B) {
		c, err := mcpclient.Dial(context.Background(), mcpclient.Options{URL: url, Token: token})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		mcpserver.BenchRun(b, qs, func(q string) {
			if err := c.Call(context.Background(), "dir2mcp.search", map[string]any{"query": q, "k": 10}, nil); err != nil {
				b.Fatal(err)
			}
		})
	})
}
