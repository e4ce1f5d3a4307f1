package mcphttp

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/tokens"
)

// withBearer sends every request with the given token.
func withBearer(h http.Handler, token string) http.Handler {
	return withHeaders(h, map[string]string{"Authorization": "Bearer " + token})
}

func TestScopedTokens(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "docs", "a.txt"), "alpha in docs\n")
	writeFile(t, filepath.Join(root, "src", "b.txt"), "bravo in src\n")
	s := index(t, root)()
	state := t.TempDir()
	tokPath := filepath.Join(state, tokens.FileName)
	now := time.Now()
	ci, _, err := tokens.Add(tokPath, "ci", []string{"dir2mcp.open_file", "dir2mcp.list_files"}, []string{"docs/"}, time.Time{}, now)
	if err != nil {
		t.Fatal(err)
	}
	soon, _, _ := tokens.Add(tokPath, "soon", nil, nil, now.Add(time.Minute), now)
	reg, err := tokens.NewRegistry(tokPath, filepath.Join(state, tokens.UsageName))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(state, "audit.jsonl")
	al, _ := audit.Open(audit.Options{Path: logPath, Keep: 1})
	s.Audit = al
	h := New(s.MCP(), Options{Token: strings.Repeat("o", 32), Tokens: reg, Audit: al})
	defer h.Close()

	owner := withBearer(h, strings.Repeat("o", 32))
	ciH := withBearer(h, ci)
	if w := rpc(t, withBearer(h, "d2m_"+strings.Repeat("0", 64)), "", initBody); w.Code != 401 {
		t.Fatalf("unknown token: %d", w.Code)
	}
	id := initSession(t, ciH)
	list := rpc(t, ciH, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).Body.String()
	if strings.Contains(list, "dir2mcp.search") || !strings.Contains(list, "dir2mcp.open_file") {
		t.Errorf("tools/list for ci: %s", list)
	}
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":{"query":"alpha"}}}`:            "OUT_OF_SCOPE",
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"src/b.txt"}}}`:  "OUT_OF_SCOPE",
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"docs/a.txt"}}}`: "alpha in docs",
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"dir2mcp:///src/b.txt"}}`:                                 "OUT_OF_SCOPE",
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"dir2mcp.list_files","arguments":{}}}`:                       `"total":1`,
		`{"jsonrpc":"2.0","id":8,"method":"resources/list"}`:                                                                         "docs/a.txt",
	} {
		if got := rpc(t, ciH, id, body).Body.String(); !strings.Contains(got, want) || strings.Contains(got, "bravo") {
			t.Errorf("%s\n→ %s\nwant %s", body, got, want)
		}
	}
	// The session is bound to its token: another token cannot use it.
	if w := rpc(t, owner, id, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`); w.Code != http.StatusForbidden {
		t.Errorf("session of ci used with the owner token: %d", w.Code)
	}
	// Revoked while the server runs: refused from the next request.
	if err := tokens.Revoke(tokPath, "ci", time.Now()); err != nil {
		t.Fatal(err)
	}
	w := rpc(t, ciH, id, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"docs/a.txt"}}}`)
	if w.Code != 401 || !strings.Contains(w.Body.String(), `revoked`) {
		t.Errorf("revoked: %d %s", w.Code, w.Body)
	}
	// Another token keeps working.
	initSession(t, withBearer(h, soon))
	al.Close()
	var recs []audit.Record
	audit.Read(logPath, audit.Filter{}, func(r audit.Record) error { recs = append(recs, r); return nil })
	var refused, outOfScope int
	for _, r := range recs {
		if r.Error == "UNAUTHORIZED" && r.Token == "ci" && r.Tool == "dir2mcp.open_file" {
			refused++
		}
		if r.Error == "OUT_OF_SCOPE" && r.Token == "ci" && r.Transport == "http" {
			outOfScope++
		}
	}
	if refused != 1 || outOfScope != 3 {
		t.Errorf("audit: %d refusals, %d out-of-scope (want 1, 3): %+v", refused, outOfScope, recs)
	}
}

func TestExpiredTokenIsRefused(t *testing.T) {
	state := t.TempDir()
	tokPath := filepath.Join(state, tokens.FileName)
	past := time.Now().Add(-time.Hour)
	old, _, err := tokens.Add(tokPath, "old", nil, nil, past.Add(time.Minute), past)
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := tokens.NewRegistry(tokPath, filepath.Join(state, tokens.UsageName))
	h, _, _ := newTestHandler(t, Options{Token: strings.Repeat("o", 32), Tokens: reg})
	if w := rpc(t, withBearer(h, old), "", initBody); w.Code != 401 || !strings.Contains(w.Body.String(), "expired") {
		t.Errorf("expired token: %d %s", w.Code, w.Body)
	}
}
