package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
)

// limited sends n requests (8 at a time) from remote through the guard
// with the default config's request tier and counts the 429s.
func limited(t *testing.T, remote string, limitLoopback bool, n int) int64 {
	t.Helper()
	rl := config.Default().Server.RateLimit
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	h := guard(Options{RPS: rl.RPS, Burst: rl.Burst, LimitLoopback: limitLoopback}, ok)
	var refused atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n/8; i++ {
				r := httptest.NewRequest("POST", "/mcp", nil)
				r.RemoteAddr, r.Host = remote, "127.0.0.1"
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, r)
				switch rec.Code {
				case http.StatusTooManyRequests:
					refused.Add(1)
				case http.StatusOK:
				default:
					t.Errorf("%s: HTTP %d", remote, rec.Code)
					return
				}
			}
		}()
	}
	wg.Wait()
	return refused.Load()
}

// TestLoopbackNeverRateLimited: with the default server.rate_limit, a burst
// of 5,000 requests from a loopback client (IPv4, IPv6, IPv4-mapped) is
// never refused.
func TestLoopbackNeverRateLimited(t *testing.T) {
	for _, remote := range []string{"127.0.0.1:40000", "127.3.2.1:40000", "[::1]:40000", "[::ffff:127.0.0.1]:40000"} {
		if n := limited(t, remote, false, 5000); n != 0 {
			t.Errorf("%s: %d of 5000 requests rate limited by default, want 0", remote, n)
		}
	}
}

// TestRemoteClientRateLimited: a client of another machine (what --public
// exposes) keeps the default limit (burst 2,000), and so does a loopback
// client with server.rate_limit.loopback true.
func TestRemoteClientRateLimited(t *testing.T) {
	for _, c := range []struct {
		remote   string
		loopback bool
	}{{"203.0.113.7:40000", false}, {"[2001:db8::7]:40000", false}, {"127.0.0.1:40000", true}} {
		if n := limited(t, c.remote, c.loopback, 5000); n == 0 {
			t.Errorf("%s (loopback limited: %v): none of 5000 rapid requests rate limited past the burst of 2000", c.remote, c.loopback)
		}
	}
}
