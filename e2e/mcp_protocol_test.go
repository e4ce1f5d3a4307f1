package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// TestHTTPChallengeAndIDs runs the real server: a 401 carries the RFC 6750
// challenge (realm only without a token, error="invalid_token" with a
// wrong one) and a body naming where the token is; JSON-RPC ids come back
// as sent, and one the SDK would change is refused with -32600 echoing it.
func TestHTTPChallengeAndIDs(t *testing.T) {
	p := start(t, "dir2mcp", nil, upArgs(copyCorpus(t, "corpus"))...)
	srv := p.connect()
	for _, tc := range []struct{ token, challenge string }{
		{"", `Bearer realm="dir2mcp"`},
		{strings.Repeat("x", 64), `Bearer realm="dir2mcp", error="invalid_token", error_description="the bearer token is not valid for this server"`},
	} {
		resp, body := newMCP(t, server{url: srv.url, token: tc.token}).rawPost(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}}, nil)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("token %q: HTTP %d, WWW-Authenticate %q, want %q", tc.token, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tc.challenge)
		}
		if !strings.Contains(string(body), "secret.token") {
			t.Errorf("401 body does not say where the token is: %s", body)
		}
	}
	c := newMCP(t, srv)
	c.initialize()
	for _, id := range []string{`9007199254740991`, `-42`, `"9223372036854775808"`} {
		resp, body := c.rawPostBody([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`), nil)
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"id":`+id+`,"result"`) {
			t.Errorf("ping id %s: HTTP %d %s", id, resp.StatusCode, body)
		}
	}
	for _, id := range []string{`9223372036854775808`, `1.5`} {
		resp, body := c.rawPostBody([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`), nil)
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"id":`+id+`,"error":{"code":-32600`) {
			t.Errorf("ping id %s: HTTP %d %s", id, resp.StatusCode, body)
		}
	}
}
