package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestSessionExpiry runs the real server with short session limits: an idle
// session expires for inactivity, a busy one at its maximum lifetime, each
// answered with 404 and X-MCP-Session-Expired, logged with its reason, and a
// fresh initialize works afterwards.
func TestSessionExpiry(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", []string{
		"DIR2MCP_SERVER_SESSION_INACTIVITY_TIMEOUT=600ms",
		"DIR2MCP_SERVER_SESSION_MAX_LIFETIME=2500ms",
	}, upArgs(dir)...)
	srv := p.connect()

	idle := newMCP(t, srv)
	idle.initialize()
	busy := newMCP(t, srv)
	busy.initialize()
	begun := time.Now()
	for time.Since(begun) < 1500*time.Millisecond {
		busy.call("ping", map[string]any{})
		time.Sleep(150 * time.Millisecond)
	}
	resp, _ := idle.post(map[string]any{"jsonrpc": "2.0", "id": 50, "method": "ping"})
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("X-MCP-Session-Expired") != "inactivity" {
		t.Errorf("idle session: HTTP %d, X-MCP-Session-Expired=%q; want 404 inactivity", resp.StatusCode, resp.Header.Get("X-MCP-Session-Expired"))
	}
	var status int
	var reason string
	for time.Since(begun) < 6*time.Second {
		resp, _ := busy.post(map[string]any{"jsonrpc": "2.0", "id": 51, "method": "ping"})
		status, reason = resp.StatusCode, resp.Header.Get("X-MCP-Session-Expired")
		if status != 200 {
			break
		}
		time.Sleep(150 * time.Millisecond)
	}
	if status != http.StatusNotFound || reason != "max-lifetime" {
		t.Errorf("busy session: HTTP %d, X-MCP-Session-Expired=%q; want 404 max-lifetime", status, reason)
	}
	if age := time.Since(begun); age < 2500*time.Millisecond {
		t.Errorf("busy session expired after %s, before its 2.5s lifetime", age)
	}
	again := newMCP(t, srv)
	again.initialize()
	again.call("ping", map[string]any{})

	deadline := time.Now().Add(5 * time.Second)
	for {
		log := p.stderr.String()
		if strings.Contains(log, "reason=inactivity") && strings.Contains(log, "reason=max-lifetime") &&
			strings.Contains(log, idle.session) && strings.Contains(log, busy.session) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("expirations not logged with reason and session id; stderr:\n%s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
