package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
		c := &rawClient{url: url, token: token, hc: srv.Client()}
		c.initialize(b)
		mcpserver.BenchRun(b, qs, func(q string) { c.search(b, q) })
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

// rawClient speaks MCP over HTTP with pre-encoded JSON-RPC bodies.
type rawClient struct {
	url, token, session string
	hc                  *http.Client
	id                  int
}

func (c *rawClient) post(b *testing.B, body []byte) []byte {
	req, err := http.NewRequest("POST", c.url, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode/100 != 2 {
		b.Fatalf("POST: %v %d %s", err, resp.StatusCode, out)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	return out
}

func (c *rawClient) initialize(b *testing.B) {
	c.post(b, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`))
	c.post(b, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

func (c *rawClient) search(b *testing.B, q string) {
	c.id++
	qj, _ := json.Marshal(q)
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":{"query":%s,"k":10}}}`, c.id, qj)
	out := c.post(b, body)
	if !bytes.Contains(out, []byte(`"structuredContent"`)) || bytes.Contains(out, []byte(`"isError":true`)) {
		b.Fatalf("search %q: %s", q, strings.TrimSpace(string(out)))
	}
}
