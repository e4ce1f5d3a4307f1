package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// pingBurst sends n pings of c's session (8 at a time) to the endpoint at
// host (the same port and path as c's server) and counts the 429s; any
// other status than 200 or 429 fails the test.
func pingBurst(t *testing.T, c *mcp, host string, n int) int64 {
	t.Helper()
	u, _ := url.Parse(c.srv.url)
	u.Host = net.JoinHostPort(host, u.Port())
	var id atomic.Int64
	var refused, failed atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n/8; i++ {
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id.Add(1))
				req, _ := http.NewRequest("POST", u.String(), strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+c.srv.token)
				req.Header.Set("MCP-Session-Id", c.session)
				req.Header.Set("MCP-Protocol-Version", "2025-11-25")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					failed.Add(1)
					first.CompareAndSwap(nil, err.Error())
					return
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusOK:
				case http.StatusTooManyRequests:
					refused.Add(1)
				default:
					failed.Add(1)
					first.CompareAndSwap(nil, resp.Status+" "+string(raw))
				}
			}
		}()
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		t.Fatalf("%s: %d pings failed (neither 200 nor 429), e.g. %v", host, f, first.Load())
	}
	return refused.Load()
}

// nonLoopbackIP is an IPv4 address of this machine other than loopback, or "".
func nonLoopbackIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	return ""
}

// TestLoopbackNotRateLimited: with the default server.rate_limit (burst
// 2,000), 5,000 rapid pings from a loopback client all succeed; with
// --public and a limit of 50 requests/s (burst 100, low enough that a slow
// machine cannot outpace it), pings from this machine's non-loopback
// address are limited while loopback stays unlimited.
func TestLoopbackNotRateLimited(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	c := newMCP(t, p.connect())
	c.initialize()
	if n := pingBurst(t, c, "127.0.0.1", 5000); n != 0 {
		t.Errorf("default config: %d of 5000 loopback pings got 429, want 0", n)
	}
	p.stop()

	ip := nonLoopbackIP()
	if ip == "" {
		t.Skip("no non-loopback address on this machine to play a remote client")
	}
	tok := strings.Repeat("k", 40)
	env := []string{"DIR2MCP_AUTH_TOKEN=" + tok, "DIR2MCP_SERVER_RATE_LIMIT_RPS=50", "DIR2MCP_SERVER_RATE_LIMIT_BURST=100"}
	p = start(t, "dir2mcp", env, upArgs(dir, "--public")...)
	srv := p.connect()
	srv.token = tok
	c = newMCP(t, srv)
	c.initialize()
	if n := pingBurst(t, c, ip, 1000); n == 0 {
		t.Errorf("--public: none of 1000 rapid pings from %s got 429 past the burst of 100", ip)
	}
	if n := pingBurst(t, c, "127.0.0.1", 5000); n != 0 {
		t.Errorf("--public: %d of 5000 loopback pings got 429, want 0", n)
	}
}
