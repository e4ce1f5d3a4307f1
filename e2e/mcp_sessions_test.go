package e2e

import (
	"bufio"
	"net/http"
	"path/filepath"
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
		log := p.lines.String() // --json: the expiry logs are notice events
		if strings.Contains(log, `"reason":"inactivity"`) && strings.Contains(log, `"reason":"max-lifetime"`) &&
			strings.Contains(log, idle.session) && strings.Contains(log, busy.session) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("expirations not logged with reason and session id; stdout:\n%s\nstderr:\n%s", log, p.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAbandonedSessionsNoLogFlood: after 40 clients left without DELETE, a
// file save notifies the one client that listens and logs nothing about
// the 40 others; every log line is in the event format (no second format).
func TestAbandonedSessionsNoLogFlood(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()
	p.wait("index_complete", 60*time.Second)
	for range 40 {
		newMCP(t, srv).initialize() // one-shot client: never sends DELETE
	}
	listener := newMCP(t, srv)
	listener.initialize()
	req, _ := http.NewRequest("GET", srv.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+srv.token)
	req.Header.Set("MCP-Session-Id", listener.session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	defer resp.Body.Close()
	changed := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/resources/list_changed") {
				changed <- true
				return
			}
		}
		changed <- false
	}()
	writeFile(t, filepath.Join(dir, "saved.md"), "# Saved\n\nA file saved while 40 sessions were abandoned.\n")
	select {
	case ok := <-changed:
		if !ok {
			t.Fatal("the GET stream ended without notifications/resources/list_changed")
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the listening client got no notifications/resources/list_changed; stderr:\n%s", p.stderr.String())
	}
	time.Sleep(500 * time.Millisecond) // the SDK notifies the sessions one after another
	logs := p.lines.String() + p.stderr.String()
	if n := strings.Count(logs, "list_changed"); n > 0 {
		t.Errorf("%d log lines about list_changed:\n%s", n, logs)
	}
	for _, line := range strings.Split(p.stderr.String(), "\n") {
		if strings.Contains(line, "level=") || strings.HasPrefix(line, "time=") {
			t.Errorf("stderr line in a second log format: %q", line)
		}
	}
}
