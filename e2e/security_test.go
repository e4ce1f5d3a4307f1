package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOpenFileConfinement: paths that leave the root are refused with
// PATH_OUTSIDE_ROOT, and secret or excluded files are never served.
func TestOpenFileConfinement(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "passwd"), "root:x:0:0\n")
	if err := os.Symlink(filepath.Join(outside, "passwd"), filepath.Join(dir, "link-out")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".dir2mcp.yaml"), "version: 1\nmistral:\n  api_key: plaintext-key-in-config-0123456789\n")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	c := newMCP(t, p.connect())
	c.initialize()
	p.wait("index_complete", 60*time.Second)

	for _, rel := range []string{"../x", "../../etc/passwd", filepath.Join(outside, "passwd"), "/etc/passwd", "%2e%2e/x", "%2e%2e%2fetc%2fpasswd", "src/../../x", "link-out"} {
		r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel})
		if got := r.errCode(); got != "PATH_OUTSIDE_ROOT" {
			t.Errorf("open_file(%q) = %q %v, want PATH_OUTSIDE_ROOT", rel, got, r.Content)
		}
	}
	for _, rel := range []string{"secrets/creds.txt", ".env", ".dir2mcp/secret.token", ".dir2mcp/meta.sqlite", ".dir2mcp.yaml"} {
		r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel})
		if got := r.errCode(); got != "FORBIDDEN" {
			t.Errorf("open_file(%q) = %q, want FORBIDDEN", rel, got)
		}
		if strings.Contains(r.Content[0].Text, "AKIAIOSFODNN7EXAMPLE") || strings.Contains(r.Content[0].Text, "hunter2") {
			t.Errorf("open_file(%q) leaked content", rel)
		}
	}
	// Secret and path-excluded files are not even listed; binaries are, as skipped.
	r := c.tool("dir2mcp.list_files", map[string]any{})
	var list struct {
		Files []struct{ RelPath, Status, Reason string }
	}
	json.Unmarshal(r.StructuredContent, &list)
	skipped := 0
	for _, f := range list.Files {
		if f.RelPath == "secrets/creds.txt" || f.RelPath == ".env" {
			t.Errorf("excluded file listed: %+v", f)
		}
		if f.Status == "skipped" {
			skipped++
		}
	}
	if skipped == 0 {
		t.Errorf("binary files should be listed as skipped: %+v", list.Files)
	}
	// A normal file opens at exact lines.
	r = c.tool("dir2mcp.open_file", map[string]any{"rel_path": "src/ledger/ledger.go", "start_line": 19, "end_line": 20})
	var of struct {
		Content string
		Span    struct {
			StartLine int `json:"start_line"`
			EndLine   int `json:"end_line"`
		} `json:"span"`
	}
	json.Unmarshal(r.StructuredContent, &of)
	if r.IsError || !strings.HasPrefix(of.Content, "// ReconcileLedgerEntries reconciles") || of.Span.StartLine != 19 || of.Span.EndLine != 20 ||
		strings.Count(of.Content, "\n") != 2 {
		t.Errorf("open_file lines 19-20 = %+v %v", of, r.Content)
	}
	// Invalid arguments name the field.
	for args, want := range map[string]string{
		`{"rel_path":"src/ledger/ledger.go","start_line":0}`:              "INVALID_RANGE",
		`{"rel_path":"src/ledger/ledger.go","start_line":9,"end_line":2}`: "INVALID_RANGE",
		`{}`: "MISSING_FIELD",
		`{"rel_path":"src/ledger/ledger.go","bogus":1}`: "INVALID_FIELD",
		`{"rel_path":"nope.txt"}`:                       "FILE_NOT_FOUND",
		`{"rel_path":"src/ledger/ledger.go","page":2}`:  "DOC_TYPE_UNSUPPORTED",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if got := c.tool("dir2mcp.open_file", a).errCode(); got != want {
			t.Errorf("open_file %s = %q, want %q", args, got, want)
		}
	}
}

// TestHTTPGuards: auth, Origin, sessions and health at the HTTP boundary.
func TestHTTPGuards(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()

	for name, tok := range map[string]string{"missing token": "", "wrong token": strings.Repeat("x", 64)} {
		c := newMCP(t, server{url: srv.url, token: tok})
		resp, _ := c.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}})
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: HTTP %d, want 401", name, resp.StatusCode)
		}
	}
	c := newMCP(t, srv)
	c.header.Set("Origin", "https://evil.example.com")
	if resp, _ := c.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: HTTP %d, want 403", resp.StatusCode)
	}
	c = newMCP(t, srv)
	c.header.Set("Origin", "http://localhost:5173")
	c.initialize() // an allowlisted origin works
	c.session = "no-such-session"
	if resp, _ := c.post(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": map[string]any{}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: HTTP %d, want 404", resp.StatusCode)
	}
	health := strings.TrimSuffix(srv.url, "/mcp") + "/health"
	resp, err := http.Get(health)
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /health: %v %v", resp, err)
	}
}

// TestExitCodes checks SPEC §2.4 exit codes and §3.3 messages.
func TestExitCodes(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin("dir2mcp"), args...)
		out, _ := cmd.CombinedOutput()
		return cmd.ProcessState.ExitCode(), string(out)
	}
	code, out := run("up", "--dir", dir, "--non-interactive", "--config", filepath.Join(dir, "missing.yaml"))
	if code != 2 || !strings.Contains(out, "CONFIG_INVALID") {
		t.Errorf("missing config file: exit %d\n%s", code, out)
	}
	writeFile(t, filepath.Join(dir, ".dir2mcp.yaml"), "version: 1\ningest:\n  pdf:\n    mode: sometimes\n")
	code, out = run("up", "--dir", dir, "--non-interactive")
	if code != 2 || !strings.Contains(out, "ingest.pdf.mode") {
		t.Errorf("invalid config: exit %d\n%s", code, out)
	}
	writeFile(t, filepath.Join(dir, ".dir2mcp.yaml"), "version: 1\nembed:\n  provider: mistral\n")
	code, out = run("up", "--dir", dir, "--non-interactive")
	if code != 2 || !strings.Contains(out, "ERROR: CONFIG_INVALID: Missing MISTRAL_API_KEY\nSet env: MISTRAL_API_KEY=...\nOr run: dir2mcp config init") {
		t.Errorf("missing key: exit %d\n%s", code, out)
	}
	os.Remove(filepath.Join(dir, ".dir2mcp.yaml"))
	code, out = run("up", "--dir", filepath.Join(dir, "notes", "todo.txt"), "--non-interactive")
	if code != 3 {
		t.Errorf("root not a directory: exit %d\n%s", code, out)
	}
	code, _ = run("up", "--dir", filepath.Join(dir, "does-not-exist"), "--non-interactive")
	if code != 3 {
		t.Errorf("missing root: exit %d", code)
	}
	// Port in use.
	p := start(t, "dir2mcp", nil, upArgs(copyCorpus(t, "corpus"))...)
	addr := strings.TrimPrefix(strings.TrimSuffix(p.connect().url, "/mcp"), "http://")
	code, out = run("up", "--dir", dir, "--non-interactive", "--listen", addr)
	if code != 4 || !strings.Contains(out, "BIND_FAILED") {
		t.Errorf("port in use: exit %d\n%s", code, out)
	}
	// --auth none off loopback is refused.
	code, out = run("up", "--dir", dir, "--non-interactive", "--public", "--auth", "none")
	if code != 2 {
		t.Errorf("--public --auth none: exit %d\n%s", code, out)
	}
}
