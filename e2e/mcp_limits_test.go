package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBodyAndRateLimits: a 10 MB body is refused with 413; past the global
// rate limit requests get 429 with Retry-After and RATE_LIMITED +
// retryAfterMs; past the expensive tier, ask returns an isError result
// RATE_LIMITED with retryAfterMs while cheap tools still work.
func TestBodyAndRateLimits(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", []string{
		"DIR2MCP_SERVER_RATE_LIMIT_RPS=5", "DIR2MCP_SERVER_RATE_LIMIT_BURST=40", "DIR2MCP_SERVER_RATE_LIMIT_LOOPBACK=true",
		"DIR2MCP_SERVER_RATE_LIMIT_EXPENSIVE_RPS=0.2", "DIR2MCP_SERVER_RATE_LIMIT_EXPENSIVE_BURST=2",
	}, upArgs(dir)...)
	srv := p.connect()
	c := newMCP(t, srv)
	c.initialize()
	p.wait("index_complete", 60*time.Second)

	big := append(append([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"`), bytes.Repeat([]byte("x"), 10<<20)...), `"}}`...)
	req, _ := http.NewRequest("POST", srv.url, bytes.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+srv.token)
	req.Header.Set("MCP-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("10 MB body: HTTP %d, want 413", resp.StatusCode)
	}

	for i := 0; i < 2; i++ {
		if r := c.tool("dir2mcp.ask", map[string]any{"question": "ledger reconciliation"}); r.IsError {
			t.Fatalf("ask %d within the burst failed: %v", i, r.Content)
		}
	}
	r := c.tool("dir2mcp.ask", map[string]any{"question": "ledger reconciliation"})
	var e struct {
		Error struct {
			Code         string `json:"code"`
			Retryable    bool   `json:"retryable"`
			RetryAfterMs int64  `json:"retryAfterMs"`
		} `json:"error"`
	}
	json.Unmarshal(r.StructuredContent, &e)
	if !r.IsError || e.Error.Code != "RATE_LIMITED" || !e.Error.Retryable || e.Error.RetryAfterMs < 1000 || e.Error.RetryAfterMs > 5000 {
		t.Errorf("3rd ask: isError=%v %s", r.IsError, r.StructuredContent)
	}
	if r := c.tool("dir2mcp.stats", map[string]any{}); r.IsError {
		t.Errorf("a cheap tool must not use the expensive tier: %v", r.Content)
	}

	var limited *http.Response
	for i := 0; i < 100 && limited == nil; i++ {
		resp, _ := c.post(map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": "ping"})
		if resp.StatusCode == http.StatusTooManyRequests {
			limited = resp
		}
	}
	if limited == nil {
		t.Fatal("no 429 within 100 rapid requests at rps=5 burst=40")
	}
	if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("429 Retry-After = %q", limited.Header.Get("Retry-After"))
	}
}

// TestExposure: a foreign Host is refused even on --public (all
// interfaces), while the loopback and IP-literal Hosts work; TLS with a bad
// certificate fails with TLS_CONFIG_INVALID (exit 2).
func TestExposure(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", []string{"DIR2MCP_AUTH_TOKEN=" + strings.Repeat("k", 40)},
		"up", "--dir", dir, "--json", "--non-interactive", "--public", "--listen", "127.0.0.1:0")
	srv := p.connect()
	srv.token = strings.Repeat("k", 40)
	for host, want := range map[string]int{"evil.example.com": 403, "127.0.0.1": 200, "localhost": 200} {
		c := newMCP(t, srv)
		req, _ := http.NewRequest("POST", srv.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+c.srv.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("--public, Host %s: HTTP %d, want %d", host, resp.StatusCode, want)
		}
	}

	writeFile(t, filepath.Join(dir, "bad.pem"), "not a certificate\n")
	cmd := exec.Command(bin("dir2mcp"), "up", "--dir", dir, "--non-interactive", "--tls-cert", filepath.Join(dir, "bad.pem"), "--tls-key", filepath.Join(dir, "bad.pem"))
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "TLS_CONFIG_INVALID") {
		t.Errorf("bad TLS files: exit %d\n%s", code, out)
	}
}

// TestTokenNeverLeaks: with a token from the environment and one from the
// state dir, no stdout/stderr line, event or file the server writes
// contains it (connection.json and the snapshot name its source only).
func TestTokenNeverLeaks(t *testing.T) {
	for _, envToken := range []bool{true, false} {
		dir := copyCorpus(t, "corpus")
		var env []string
		tok := "tok-" + strings.Repeat("s3cr3t", 8)
		if envToken {
			env = []string{"DIR2MCP_AUTH_TOKEN=" + tok}
		}
		p := start(t, "dir2mcp", env, upArgs(dir)...)
		srv := p.connect()
		if envToken {
			srv.token = tok
		}
		if srv.token == "" {
			t.Fatal("no token")
		}
		c := newMCP(t, srv)
		c.initialize()
		p.wait("index_complete", 60*time.Second)
		c.tool("dir2mcp.search", map[string]any{"query": srv.token}) // the token as input must not echo into logs
		c.tool("dir2mcp.open_file", map[string]any{"rel_path": "../" + srv.token})
		bad := newMCP(t, server{url: srv.url, token: srv.token + "x"})
		bad.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"})
		p.stop()
		if strings.Contains(p.lines.String(), srv.token) || strings.Contains(p.stderr.String(), srv.token) {
			t.Errorf("env=%v: token in stdout/stderr", envToken)
		}
		state := filepath.Join(dir, ".dir2mcp")
		filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Base(path) == "secret.token" {
				return nil
			}
			b, _ := os.ReadFile(path)
			if bytes.Contains(b, []byte(srv.token)) {
				t.Errorf("env=%v: token written to %s", envToken, path)
			}
			return nil
		})
	}
}
