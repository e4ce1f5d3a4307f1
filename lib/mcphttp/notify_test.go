package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// After 40 clients left without DELETE, a resource list change reaches the
// client that listens and logs nothing about the 40 others.
func TestListChangedSkipsSessionsWithoutStream(t *testing.T) {
	var logs syncBuf
	s := &mcpserver.Server{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	h := New(s.MCP(), Options{SessionTimeout: time.Hour})
	t.Cleanup(h.Close)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for range 40 {
		initSession(t, h)
	}
	listener := initSession(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", listener)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", err, resp)
	}
	defer resp.Body.Close()
	for !h.sessions.reachable(listener) {
		time.Sleep(time.Millisecond)
	}
	s.MCP().AddResource(&mcp.Resource{URI: "dir2mcp:///new.txt", Name: "new.txt"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
	got := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/resources/list_changed") {
				got <- true
				return
			}
		}
		got <- false
	}()
	select {
	case ok := <-got:
		if !ok {
			t.Fatal("the stream ended without the notification")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the listening client got no notifications/resources/list_changed")
	}
	time.Sleep(200 * time.Millisecond) // the SDK notifies the sessions one after another
	if n := strings.Count(logs.String(), "list_changed"); n > 0 {
		t.Errorf("%d log lines about list_changed for sessions without a stream:\n%s", n, logs.String())
	}
}

// syncBuf is a bytes.Buffer safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
