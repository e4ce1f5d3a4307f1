package mcphttp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
)

// fakeClock is a settable time source.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newTestHandler serves a Server with no index over HTTP with a settable
// clock and no background sweeper.
func newTestHandler(t *testing.T, o Options) (*Handler, *fakeClock, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := New((&mcpserver.Server{}).MCP(), o)
	h.sessions.stopped.Do(func() { close(h.sessions.stop) }) // the test drives expiry
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	h.sessions.now = clk.now
	t.Cleanup(h.Close)
	return h, clk, &logs
}

func rpc(t testing.TB, h http.Handler, session, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	r.Host = "127.0.0.1:8080"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		r.Header.Set("Mcp-Session-Id", session)
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func initSession(t testing.TB, h http.Handler) string {
	t.Helper()
	w := rpc(t, h, "", initBody)
	id := w.Header().Get("Mcp-Session-Id")
	if w.Code != 200 || id == "" {
		t.Fatalf("initialize: %d %q", w.Code, w.Body.String())
	}
	if w := rpc(t, h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); w.Code != http.StatusAccepted {
		t.Fatalf("initialized: %d", w.Code)
	}
	return id
}

func ping(t *testing.T, h http.Handler, id string) *httptest.ResponseRecorder {
	return rpc(t, h, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
}

func TestSessionInactivityExpiry(t *testing.T) {
	h, clk, logs := newTestHandler(t, Options{SessionTimeout: time.Minute})
	id := initSession(t, h)
	clk.add(50 * time.Second)
	if w := ping(t, h, id); w.Code != 200 {
		t.Fatalf("active session: %d", w.Code)
	}
	clk.add(50 * time.Second) // 100s old but active 50s ago
	if w := ping(t, h, id); w.Code != 200 {
		t.Fatalf("activity must reset the idle clock: %d", w.Code)
	}
	clk.add(61 * time.Second)
	w := ping(t, h, id)
	if w.Code != 404 || w.Header().Get(ExpiredHeader) != ExpiredInactivity {
		t.Fatalf("idle session: %d %q", w.Code, w.Header().Get(ExpiredHeader))
	}
	if !strings.Contains(logs.String(), "reason=inactivity") || !strings.Contains(logs.String(), id) {
		t.Errorf("expiry not logged with reason and id:\n%s", logs.String())
	}
	if w := ping(t, h, id); w.Code != 404 || w.Header().Get(ExpiredHeader) != ExpiredInactivity {
		t.Errorf("expired id must stay 404 with its reason: %d", w.Code)
	}
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions left", n)
	}
	if id2 := initSession(t, h); id2 == id {
		t.Error("re-initialize reused the expired id")
	}
}

func TestSessionMaxLifetime(t *testing.T) {
	h, clk, logs := newTestHandler(t, Options{SessionTimeout: time.Hour, SessionMaxLifetime: 10 * time.Minute})
	id := initSession(t, h)
	for range 9 {
		clk.add(time.Minute)
		if w := ping(t, h, id); w.Code != 200 {
			t.Fatalf("young session: %d", w.Code)
		}
	}
	clk.add(time.Minute)
	// The sweep, not only a request, expires it.
	h.sessions.sweep()
	if n := h.Sessions(); n != 0 {
		t.Errorf("sweep left %d sessions", n)
	}
	w := ping(t, h, id)
	if w.Code != 404 || w.Header().Get(ExpiredHeader) != ExpiredMaxLifetime {
		t.Fatalf("old session: %d %q", w.Code, w.Header().Get(ExpiredHeader))
	}
	var body struct {
		Error struct {
			Data struct{ Code string } `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal(w.Body.Bytes(), &body)
	if body.Error.Data.Code != "SESSION_NOT_FOUND" {
		t.Errorf("404 body: %s", w.Body.String())
	}
	if !strings.Contains(logs.String(), "reason=max-lifetime") {
		t.Errorf("not logged: %s", logs.String())
	}
}

func TestSessionDeleteAndUnknown(t *testing.T) {
	h, _, _ := newTestHandler(t, Options{})
	id := initSession(t, h)
	r := httptest.NewRequest("DELETE", "/mcp", nil)
	r.Host = "localhost"
	r.Header.Set("Mcp-Session-Id", id)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code/100 != 2 || h.Sessions() != 0 {
		t.Fatalf("DELETE: %d, %d sessions left", w.Code, h.Sessions())
	}
	if w := ping(t, h, id); w.Code != 404 || w.Header().Get(ExpiredHeader) != "" {
		t.Errorf("deleted session: %d %q (no expiry reason expected)", w.Code, w.Header().Get(ExpiredHeader))
	}
	if w := ping(t, h, "no-such-session"); w.Code != 404 {
		t.Errorf("unknown session: %d", w.Code)
	}
}

func TestSessionCapacityEvictsLeastRecent(t *testing.T) {
	h, clk, _ := newTestHandler(t, Options{MaxSessions: 3})
	var ids []string
	for range 3 {
		ids = append(ids, initSession(t, h))
		clk.add(time.Second)
	}
	ping(t, h, ids[0]) // ids[1] is now the least recently active
	clk.add(time.Second)
	ids = append(ids, initSession(t, h))
	if n := h.Sessions(); n != 3 {
		t.Fatalf("%d sessions, want the cap 3", n)
	}
	if w := ping(t, h, ids[1]); w.Code != 404 || w.Header().Get(ExpiredHeader) != ExpiredCapacity {
		t.Errorf("evicted session: %d %q", w.Code, w.Header().Get(ExpiredHeader))
	}
	for _, id := range []string{ids[0], ids[2], ids[3]} {
		if w := ping(t, h, id); w.Code != 200 {
			t.Errorf("kept session %s: %d", id, w.Code)
		}
	}
}

// A first request that is not initialize leaves no session behind.
func TestFailedInitializeLeavesNoSession(t *testing.T) {
	h, _, _ := newTestHandler(t, Options{})
	rpc(t, h, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if n := h.Sessions(); n != 0 {
		t.Errorf("%d sessions after a non-initialize first request", n)
	}
}

// Memory stays flat while clients initialize sessions and abandon them:
// the table never holds more than MaxSessions.
func BenchmarkSessionInitAbandon(b *testing.B) {
	h := New((&mcpserver.Server{}).MCP(), Options{MaxSessions: 256})
	defer h.Close()
	cycle := func() {
		if w := rpc(b, h, "", initBody); w.Code != 200 {
			b.Fatalf("initialize: %d", w.Code)
		}
	}
	heap := func() float64 {
		time.Sleep(50 * time.Millisecond) // let evicted sessions close
		runtimeGC()
		return heapInuse()
	}
	for range 1000 { // fill the table
		cycle()
	}
	before := heap()
	const cycles = 10000
	b.ResetTimer()
	for range b.N {
		for range cycles {
			cycle()
		}
	}
	b.StopTimer()
	after := heap()
	b.ReportMetric(float64(h.Sessions()), "sessions")
	b.ReportMetric((after-before)/1024, "heap-growth-KiB")
	b.ReportMetric((after-before)/float64(cycles*b.N), "heap-growth-B/cycle")
}
