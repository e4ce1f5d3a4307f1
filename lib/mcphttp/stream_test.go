package mcphttp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// openStream opens the standalone GET stream of session id, as a listening
// client does, and returns once the table counts it; the returned func
// closes it.
func openStream(t *testing.T, h *Handler, id string) (closeStream func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequest("GET", "/mcp", nil).WithContext(ctx)
	r.Host = "127.0.0.1:8080"
	r.Header.Set("Accept", "text/event-stream")
	r.Header.Set("Mcp-Session-Id", id)
	r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	done := make(chan struct{})
	go func() { defer close(done); h.ServeHTTP(httptest.NewRecorder(), r) }()
	for !h.sessions.reachable(id) {
		select {
		case <-done:
			t.Fatalf("GET stream of %s ended at once", id)
		case <-time.After(time.Millisecond):
		}
	}
	closeStream = func() { cancel(); <-done }
	t.Cleanup(closeStream)
	return closeStream
}

// A full table evicts an idle session, never the older one whose client
// listens on its GET stream.
func TestCapacityKeepsListeningSession(t *testing.T) {
	h, clk, _ := newTestHandler(t, Options{MaxSessions: 2})
	listening := initSession(t, h)
	openStream(t, h, listening)
	clk.add(time.Second)
	idle := initSession(t, h)
	clk.add(time.Second)
	fresh := initSession(t, h)
	if w := ping(t, h, idle); w.Code != 404 || w.Header().Get(ExpiredHeader) != ExpiredCapacity {
		t.Errorf("idle session: %d %q, want it evicted", w.Code, w.Header().Get(ExpiredHeader))
	}
	for _, id := range []string{listening, fresh} {
		if w := ping(t, h, id); w.Code != 200 {
			t.Errorf("session %s: %d, want kept", id, w.Code)
		}
	}
}

// A session left without DELETE (no stream, nothing in flight) is reaped
// after the abandon timeout, well before the 24 h inactivity timeout; one
// whose client listens is not idle at all.
func TestAbandonedSessionReaped(t *testing.T) {
	h, clk, logs := newTestHandler(t, Options{SessionTimeout: 24 * time.Hour})
	listening := initSession(t, h)
	closeStream := openStream(t, h, listening)
	left := initSession(t, h)
	clk.add(DefaultAbandonTimeout - time.Second)
	h.sessions.sweep()
	if h.Sessions() != 2 {
		t.Fatalf("%d sessions before the abandon timeout, want 2", h.Sessions())
	}
	clk.add(time.Second)
	h.sessions.sweep()
	if w := ping(t, h, left); w.Code != 404 || w.Header().Get(ExpiredHeader) != ExpiredInactivity {
		t.Errorf("abandoned session: %d %q", w.Code, w.Header().Get(ExpiredHeader))
	}
	clk.add(25 * time.Hour)
	h.sessions.sweep()
	if h.Sessions() != 1 {
		t.Errorf("the listening session expired while its stream was open")
	}
	closeStream()
	clk.add(DefaultAbandonTimeout)
	h.sessions.sweep()
	if h.Sessions() != 0 {
		t.Errorf("session still open %s after its stream closed", DefaultAbandonTimeout)
	}
	if got := logs.String(); !containsAll(got, left, listening, "reason=inactivity") {
		t.Errorf("expiries not logged:\n%s", got)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

var _ http.Handler = (*Handler)(nil)
