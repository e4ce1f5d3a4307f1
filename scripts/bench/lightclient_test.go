package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

// TestLightSearcherCountsFailures: the light client must report every
// failed call the go-sdk client would (a JSON-RPC error, a tool error, an
// HTTP error), in both answer framings Streamable HTTP allows (JSON and
// an SSE event), and must not mistake a snippet quoting those words for
// one.
func TestLightSearcherCountsFailures(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"isError\":true, \"error\":{}"}],"structuredContent":{"hits":[]}}}`
	answers := map[string]struct {
		status int
		body   string
		fails  bool
	}{
		"ok":       {200, ok, false},
		"sse":      {200, "event: message\ndata: " + ok + "\n\n", false},
		"rpcerror": {200, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}`, true},
		"toolerr":  {200, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"INVALID_FIELD"}],"isError":true}}`, true},
		"nostruct": {200, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`, true},
		"http":     {429, `rate limited`, true},
	}
	var current string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", 401)
			return
		}
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == "DELETE":
			return
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Write([]byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"x","version":"1"}}}`))
			return
		case r.Header.Get("Mcp-Session-Id") != "s1":
			http.Error(w, "no session", 400)
			return
		case strings.Contains(string(body), `"notifications/initialized"`):
			w.WriteHeader(202)
			return
		}
		a := answers[current]
		if current == "sse" {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	defer srv.Close()
	ctx := context.Background()
	c, err := dialSearcher(ctx, mcpclient.Options{URL: srv.URL, Token: "tok"}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for name, a := range answers {
		current = name
		err := c.search(ctx, "q")
		if (err != nil) != a.fails {
			t.Errorf("%s: error %v, want failure %v", name, err, a.fails)
		}
	}
	if _, err := dialSearcher(ctx, mcpclient.Options{URL: srv.URL, Token: "wrong"}, true); err == nil {
		t.Error("dial with a wrong token: no error")
	}
}
