package mcpserver

import (
	"testing"
	"time"
)

func TestLimiterBurstThenRate(t *testing.T) {
	l := newLimiter(2, 3) // 2/s, burst 3
	clk := &fakeClock{t: time.Unix(0, 0)}
	l.now = clk.now
	for i := range 3 {
		if ok, _ := l.allow("a"); !ok {
			t.Fatalf("burst request %d refused", i)
		}
	}
	ok, wait := l.allow("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("4th request: ok=%v wait=%v, want refused for 500ms", ok, wait)
	}
	if ok, _ := l.allow("b"); !ok {
		t.Error("another client shares a's bucket")
	}
	clk.add(wait)
	if ok, _ := l.allow("a"); !ok {
		t.Error("refused after waiting retryAfter")
	}
	e := rateLimited("dir2mcp.ask", 1234567*time.Nanosecond)
	if e.Code != "RATE_LIMITED" || !e.Retryable || e.RetryAfterMs != 2 {
		t.Errorf("error %+v", e)
	}
	if ok, _ := newLimiter(0, 0).allow("x"); !ok {
		t.Error("rps 0 must mean unlimited")
	}
}

func TestHostAllowed(t *testing.T) {
	allowed := []string{"mcp.example.com", "*.corp.example"}
	for host, want := range map[string]bool{
		"127.0.0.1:8080":        true,
		"[::1]:9":               true,
		"localhost:3000":        true,
		"app.localhost":         true,
		"192.168.1.20:8087":     true,
		"mcp.example.com":       true,
		"MCP.EXAMPLE.COM.:443":  true,
		"a.corp.example":        true,
		"evil.example.com":      false,
		"evil.example.com:8087": false,
		"corp.example.evil.com": false,
	} {
		if got := hostAllowed(host, allowed); got != want {
			t.Errorf("hostAllowed(%q) = %v", host, got)
		}
	}
	if !hostAllowed("anything.test", []string{"*"}) {
		t.Error(`"*" must allow any host`)
	}
}
