package e2e

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// auditLine is the subset of an audit record the tests check.
type auditLine struct {
	Time          time.Time      `json:"time"`
	Session       string         `json:"session"`
	Transport     string         `json:"transport"`
	Client        string         `json:"client"`
	ClientVersion string         `json:"client_version"`
	Token         string         `json:"token"`
	Tool          string         `json:"tool"`
	ArgsSHA256    string         `json:"args_sha256"`
	Args          map[string]any `json:"args"`
	ResultBytes   int            `json:"result_bytes"`
	DurationMs    float64        `json:"duration_ms"`
	Error         string         `json:"error"`
	Redactions    int            `json:"redactions"`
}

// auditCLI runs `dir2mcp audit --json` with extra flags and decodes the
// records it prints.
func auditCLI(t *testing.T, dir string, flags ...string) []auditLine {
	t.Helper()
	out, err := exec.Command(bin("dir2mcp"), append([]string{"audit", "--dir", dir, "--json"}, flags...)...).Output()
	if err != nil {
		t.Fatalf("dir2mcp audit %v: %v", flags, err)
	}
	var recs []auditLine
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var r auditLine
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit --json line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestAuditLogHTTP: every tool call over HTTP leaves one audit record with
// the session, client, token label, digest, kept arguments, size, duration
// and error code; the log rotates by size; `dir2mcp audit` reads the
// rotated files and filters.
func TestAuditLogHTTP(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	env := []string{"DIR2MCP_AUDIT_MAX_BYTES=4096", "DIR2MCP_AUDIT_KEEP=50"}
	p := start(t, "dir2mcp", env, upArgs(dir)...)
	c := newMCP(t, p.connect())
	c.initialize()
	p.wait("index_complete", 60*time.Second)
	const searches = 30
	for i := range searches {
		c.search(fmt.Sprintf("ledger entries %d", i), map[string]any{"k": 3})
	}
	if r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": "../outside"}); r.errCode() != "PATH_OUTSIDE_ROOT" {
		t.Fatalf("open_file outside: %v", r.Content)
	}
	c.call("resources/read", map[string]any{"uri": "dir2mcp:///README.md"})
	// The agent tools go through the same log.
	for name, args := range map[string]map[string]any{
		"dir2mcp.grep":      {"pattern": "Entry", "context": 1},
		"dir2mcp.find":      {"glob": "**/*.go"},
		"dir2mcp.checksum":  {"rel_path": "src/ledger/ledger.go"},
		"dir2mcp.open_file": {"rel_path": "src/ledger/ledger.go", "offset": 100, "length": 40},
	} {
		if r := c.tool(name, args); r.IsError {
			t.Fatalf("%s: %v", name, r.Content)
		}
	}
	const others = 6 // open_file outside, resources/read, grep, find, checksum, exact read
	p.stop()

	files, _ := filepath.Glob(filepath.Join(dir, ".dir2mcp", "audit.jsonl*"))
	if len(files) < 3 {
		t.Errorf("audit files %v: want the log rotated at 4 KiB", files)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Size() > 4096 || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %d bytes, mode %v", f, fi.Size(), fi.Mode().Perm())
		}
	}
	all := auditCLI(t, dir)
	if len(all) != searches+others {
		t.Fatalf("audit printed %d records, want %d (rotated files included)", len(all), searches+others)
	}
	first := all[0]
	if first.Tool != "dir2mcp.search" || first.Transport != "http" || first.Session != c.session || first.Client != "e2e" ||
		first.ClientVersion != "1" || first.Token != "owner" || len(first.ArgsSHA256) != 64 || first.Args["query"] != "ledger entries 0" ||
		first.ResultBytes == 0 || first.DurationMs <= 0 || first.Error != "" || first.Time.IsZero() {
		t.Errorf("first record %+v", first)
	}
	if got := auditCLI(t, dir, "--tool", "search"); len(got) != searches {
		t.Errorf("--tool search: %d records", len(got))
	}
	if got := auditCLI(t, dir, "--errors"); len(got) != 1 || got[0].Error != "PATH_OUTSIDE_ROOT" || got[0].Tool != "dir2mcp.open_file" {
		t.Errorf("--errors: %+v", got)
	}
	if got := auditCLI(t, dir, "--token", "owner", "--tool", "resources/read"); len(got) != 1 || got[0].Args["uri"] != "dir2mcp:///README.md" {
		t.Errorf("--token owner --tool resources/read: %+v", got)
	}
	if got := auditCLI(t, dir, "--tool", "grep"); len(got) != 1 || got[0].Args["pattern"] != "Entry" || got[0].ResultBytes == 0 {
		t.Errorf("--tool grep: %+v", got)
	}
	for _, tool := range []string{"find", "checksum"} {
		if got := auditCLI(t, dir, "--tool", tool); len(got) != 1 || got[0].Error != "" {
			t.Errorf("--tool %s: %+v", tool, got)
		}
	}
	if got := auditCLI(t, dir, "--tool", "open_file"); len(got) != 2 || got[1].Args["offset"] != float64(100) {
		t.Errorf("--tool open_file: %+v", got)
	}
	if got := auditCLI(t, dir, "--since", "1h"); len(got) != searches+others {
		t.Errorf("--since 1h: %d", len(got))
	}
	if got := auditCLI(t, dir, "--since", time.Now().Add(time.Hour).Format(time.RFC3339)); len(got) != 0 {
		t.Errorf("--since the future: %d", len(got))
	}
	if got := auditCLI(t, dir, "--token", "nobody"); len(got) != 0 {
		t.Errorf("--token nobody: %d", len(got))
	}
	human, err := exec.Command(bin("dir2mcp"), "audit", "--dir", dir, "--errors").Output()
	if err != nil || !strings.Contains(string(human), "PATH_OUTSIDE_ROOT") || !strings.Contains(string(human), "owner") {
		t.Errorf("human audit: %s %v", human, err)
	}
}

// closeStdio ends the stdio session (stdin) and waits for the server to
// exit, so everything it writes is on disk.
func closeStdio(c *stdioClient) {
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		c.t.Fatal("stdio server did not exit")
	}
}

// initStdio starts `up --stdio` on dir and initializes the session.
func initStdio(t *testing.T, dir string, extra ...string) *stdioClient {
	t.Helper()
	c := startStdio(t, append([]string{"up", "--stdio", "--dir", dir, "--non-interactive"}, extra...)...)
	c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "stdio-e2e", "version": "7"}})
	c.notify("notifications/initialized")
	return c
}

// TestAuditLogStdio: calls over stdio are audited too, with the stdio
// transport, the client's name and no token.
func TestAuditLogStdio(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	c := initStdio(t, dir)
	c.call("tools/call", map[string]any{"name": "dir2mcp.stats", "arguments": map[string]any{}})
	c.call("tools/call", map[string]any{"name": "dir2mcp.open_file", "arguments": map[string]any{"rel_path": "README.md", "start_line": 1, "end_line": 2}})
	closeStdio(c)
	recs := auditCLI(t, dir)
	if len(recs) != 2 {
		t.Fatalf("stdio audit records: %+v", recs)
	}
	for _, r := range recs {
		if r.Transport != "stdio" || r.Client != "stdio-e2e" || r.ClientVersion != "7" || r.Token != "" || !strings.HasPrefix(r.Session, "stdio-") || r.Error != "" {
			t.Errorf("stdio record %+v", r)
		}
	}
	if recs[1].Tool != "dir2mcp.open_file" || recs[1].Args["start_line"] != 1.0 || recs[1].Args["rel_path"] != "README.md" {
		t.Errorf("open_file record %+v", recs[1])
	}
}

// tokenAdd runs `dir2mcp token add` and returns the token it prints.
func tokenAdd(t *testing.T, dir, name string, flags ...string) string {
	t.Helper()
	cmd := exec.Command(bin("dir2mcp"), append([]string{"token", "add", name, "--dir", dir}, flags...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("token add %s: %v\n%s", name, err, stderr.String())
	}
	tok := strings.TrimSpace(string(out))
	if !strings.HasPrefix(tok, "d2m_") || len(tok) != 68 || strings.Contains(stderr.String(), tok) {
		t.Fatalf("token add printed %q (stderr %q)", tok, stderr.String())
	}
	return tok
}

// writeExpiredToken adds a token that expired an hour ago straight to the
// tokens file (the CLI refuses past expiries) and returns it.
func writeExpiredToken(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, ".dir2mcp", "tokens.json")
	var f struct {
		Version int              `json:"version"`
		Tokens  []map[string]any `json:"tokens"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &f)
	tok := "d2m_" + strings.Repeat("ab", 32)
	sum := sha256.Sum256([]byte(tok))
	now := time.Now().UTC()
	f.Tokens = append(f.Tokens, map[string]any{"label": name, "sha256": hex.EncodeToString(sum[:]),
		"created": now.Add(-2 * time.Hour).Format(time.RFC3339), "expires": now.Add(-time.Hour).Format(time.RFC3339)})
	b, _ = json.Marshal(f)
	if err := os.WriteFile(path+".tmp", b, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Rename(path+".tmp", path)
	return tok
}

// TestScopedTokens: a token limited to tools and paths is refused, with
// OUT_OF_SCOPE and an audit line, everything else — through every tool
// that takes a path; an expired token and a token revoked while the
// server runs get 401; token list never shows a token.
func TestScopedTokens(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	docs := tokenAdd(t, dir, "docs", "--tools", "search,ask,open_file,list_files,grep,find,checksum,transcribe,annotate,transcribe_and_ask,diff", "--paths", "docs/")
	searchOnly := tokenAdd(t, dir, "searcher", "--tools", "search", "--expires", "30d")
	expired := writeExpiredToken(t, dir, "old")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	owner := p.connect()
	p.wait("index_complete", 60*time.Second)
	// Added while the server runs: usable at once.
	late := tokenAdd(t, dir, "late", "--paths", "src/")

	d := newMCP(t, server{url: owner.url, token: docs})
	d.initialize()
	var lt struct{ Tools []struct{ Name string } }
	json.Unmarshal(d.call("tools/list", map[string]any{}), &lt)
	for _, tl := range lt.Tools {
		if tl.Name == "dir2mcp.stats" {
			t.Error("tools/list shows a tool the token may not call")
		}
	}
	if r := d.tool("dir2mcp.stats", map[string]any{}); r.errCode() != "OUT_OF_SCOPE" {
		t.Errorf("stats with the docs token: %v", r.Content)
	}
	outside := map[string]map[string]any{
		"dir2mcp.open_file":          {"rel_path": "src/ledger/ledger.go"},
		"dir2mcp.checksum":           {"rel_path": "src/ledger/ledger.go", "algorithms": []string{"sha256", "md5"}},
		"dir2mcp.transcribe":         {"rel_path": "notes/todo.txt"},
		"dir2mcp.annotate":           {"rel_path": "src/geo/distance.py", "schema_json": map[string]any{"type": "object"}},
		"dir2mcp.transcribe_and_ask": {"rel_path": "notes/todo.txt", "question": "what?"},
	}
	for tool, args := range outside {
		if r := d.tool(tool, args); r.errCode() != "OUT_OF_SCOPE" {
			t.Errorf("%s %v: %q %v", tool, args, r.errCode(), r.Content)
		}
	}
	for _, tricky := range []string{"docs/../src/ledger/ledger.go", "./src/geo/distance.py", "docs/../../etc/passwd"} {
		if r := d.tool("dir2mcp.open_file", map[string]any{"rel_path": tricky}); r.errCode() != "OUT_OF_SCOPE" && r.errCode() != "PATH_OUTSIDE_ROOT" {
			t.Errorf("open_file %q: %q", tricky, r.errCode())
		}
		// Exact reads and digests go through the same check.
		for _, tool := range []string{"dir2mcp.open_file", "dir2mcp.checksum"} {
			args := map[string]any{"rel_path": tricky}
			if tool == "dir2mcp.open_file" {
				args["offset"], args["length"] = 0, 64
			}
			if r := d.tool(tool, args); r.errCode() != "OUT_OF_SCOPE" && r.errCode() != "PATH_OUTSIDE_ROOT" {
				t.Errorf("%s %v: %q", tool, args, r.errCode())
			}
		}
	}
	if r := d.tool("dir2mcp.open_file", map[string]any{"rel_path": "src/ledger/ledger.go", "offset": 100, "length": 40}); r.errCode() != "OUT_OF_SCOPE" {
		t.Errorf("exact read outside the scope: %q %v", r.errCode(), r.Content)
	}
	if r := d.tool("dir2mcp.open_file", map[string]any{"rel_path": "docs/guide.md", "offset": 0, "length": 40}); r.IsError {
		t.Errorf("exact read inside the scope: %v", r.Content)
	}
	// grep and find name only files under docs/, whatever they ask for.
	for _, args := range []map[string]any{{"pattern": "func|Entry|dome|distance"}, {"pattern": "ledger", "case": "insensitive", "path_prefix": "src/"},
		{"pattern": ".", "glob": "**/*.go"}, {"pattern": "e", "max_matches": 1000}} {
		var g struct {
			Matches []struct {
				RelPath string `json:"rel_path"`
			}
		}
		r := d.tool("dir2mcp.grep", args)
		if r.IsError {
			t.Fatalf("grep %v: %v", args, r.Content)
		}
		json.Unmarshal(r.StructuredContent, &g)
		for _, m := range g.Matches {
			if !strings.HasPrefix(m.RelPath, "docs/") {
				t.Errorf("grep %v matches %s outside docs/", args, m.RelPath)
			}
		}
		if args["pattern"] == "e" && len(g.Matches) == 0 {
			t.Error("grep inside docs/ finds nothing")
		}
	}
	for _, args := range []map[string]any{{}, {"glob": "**/*.go"}, {"path_prefix": "src/"}, {"sort": "size", "order": "desc", "limit": 1}} {
		var f struct {
			Total int
			Files []struct {
				RelPath string `json:"rel_path"`
			}
		}
		json.Unmarshal(d.tool("dir2mcp.find", args).StructuredContent, &f)
		for _, e := range f.Files {
			if !strings.HasPrefix(e.RelPath, "docs/") {
				t.Errorf("find %v lists %s", args, e.RelPath)
			}
		}
		if len(args) == 0 && f.Total == 0 {
			t.Error("find inside docs/ finds nothing")
		}
	}
	// A cursor of the owner's listing does not page the token's.
	ownerMCP := newMCP(t, owner)
	ownerMCP.initialize()
	var page struct {
		NextCursor string `json:"next_cursor"`
	}
	json.Unmarshal(ownerMCP.tool("dir2mcp.list_files", map[string]any{"limit": 1}).StructuredContent, &page)
	if r := d.tool("dir2mcp.list_files", map[string]any{"limit": 1, "cursor": page.NextCursor}); page.NextCursor == "" || r.errCode() != "INVALID_FIELD" {
		t.Errorf("the owner's cursor on the docs token: %q", r.errCode())
	}
	if r := d.tool("dir2mcp.open_file", map[string]any{"rel_path": "docs/guide.md"}); r.IsError {
		t.Errorf("open_file inside the scope: %v", r.Content)
	}
	// Searches and lists stay inside docs/, even when asked for src/.
	for _, args := range []map[string]any{{"query": "ledger reconcile bank statement"}, {"query": "ledger", "path_prefix": "src/"}, {"query": "haversine distance"}} {
		for _, h := range d.search(args["query"].(string), args).Hits {
			if !strings.HasPrefix(h.RelPath, "docs/") {
				t.Errorf("search %v hit %s outside docs/", args, h.RelPath)
			}
		}
	}
	r := d.tool("dir2mcp.ask", map[string]any{"question": "how are ledger entries reconciled?"})
	if b, _ := json.Marshal(r); strings.Contains(string(b), "src/ledger") {
		t.Errorf("ask cites a file outside the scope: %s", b)
	}
	for _, args := range []map[string]any{{}, {"path_prefix": "src/"}, {"excluded": true}, {"glob": "**/*.go"}} {
		r := d.tool("dir2mcp.list_files", args)
		var l struct {
			Files []struct {
				RelPath string `json:"rel_path"`
			}
		}
		json.Unmarshal(r.StructuredContent, &l)
		for _, f := range l.Files {
			if !strings.HasPrefix(f.RelPath, "docs/") {
				t.Errorf("list_files %v lists %s", args, f.RelPath)
			}
		}
	}
	d.id++
	resp, rr := d.post(map[string]any{"jsonrpc": "2.0", "id": d.id, "method": "resources/read", "params": map[string]any{"uri": "dir2mcp:///src/ledger/ledger.go"}})
	if resp.StatusCode != 200 || rr.Error == nil || !strings.Contains(rr.Error.Message, "OUT_OF_SCOPE") {
		t.Errorf("resources/read outside: %+v", rr)
	}
	var rl struct{ Resources []struct{ URI string } }
	json.Unmarshal(d.call("resources/list", map[string]any{}), &rl)
	for _, r := range rl.Resources {
		if !strings.HasPrefix(r.URI, "dir2mcp:///docs/") {
			t.Errorf("resources/list shows %s", r.URI)
		}
	}
	var comp struct{ Completion struct{ Values []string } }
	json.Unmarshal(d.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "dir2mcp:///{+path}"},
		"argument": map[string]any{"name": "path", "value": ""}}), &comp)
	for _, v := range comp.Completion.Values {
		if !strings.HasPrefix(v, "docs/") {
			t.Errorf("completion offers %s", v)
		}
	}

	// A search-only token; the late token (paths src/) works without a restart.
	s := newMCP(t, server{url: owner.url, token: searchOnly})
	s.initialize()
	if r := s.tool("dir2mcp.open_file", map[string]any{"rel_path": "docs/guide.md"}); r.errCode() != "OUT_OF_SCOPE" {
		t.Errorf("open_file with a search-only token: %v", r.Content)
	}
	l := newMCP(t, server{url: owner.url, token: late})
	l.initialize()
	if r := l.tool("dir2mcp.open_file", map[string]any{"rel_path": "src/geo/distance.py"}); r.IsError {
		t.Errorf("late token: %v", r.Content)
	}
	// Expired: 401 at the HTTP layer.
	e := newMCP(t, server{url: owner.url, token: expired})
	if resp, body := e.rawPost(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}}, nil); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "expired") {
		t.Errorf("expired token: %d %s", resp.StatusCode, body)
	}
	// Revoked while the server runs: the open session is refused next request.
	if out, err := exec.Command(bin("dir2mcp"), "token", "revoke", "late", "--dir", dir).CombinedOutput(); err != nil {
		t.Fatalf("token revoke: %v %s", err, out)
	}
	l.id++
	resp, body := l.rawPost(map[string]any{"jsonrpc": "2.0", "id": l.id, "method": "tools/call", "params": map[string]any{"name": "dir2mcp.open_file", "arguments": map[string]any{"rel_path": "src/geo/distance.py"}}}, nil)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "revoked") {
		t.Errorf("revoked token: %d %s", resp.StatusCode, body)
	}
	// A session cannot change hands.
	d2 := newMCP(t, server{url: owner.url, token: owner.token})
	d2.session = d.session
	if resp, _ := d2.rawPost(map[string]any{"jsonrpc": "2.0", "id": 99, "method": "tools/list"}, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the owner token on the docs token's session: %d", resp.StatusCode)
	}

	// token list: names, states, scopes; never a token or its hash.
	time.Sleep(3 * time.Second) // the server records last use every 2 s
	out, err := exec.Command(bin("dir2mcp"), "token", "list", "--dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("token list: %v %s", err, out)
	}
	list := string(out)
	for _, want := range []string{"docs", "active", "searcher", "late", "revoked", "old", "expired", "docs/", "dir2mcp.search"} {
		if !strings.Contains(list, want) {
			t.Errorf("token list lacks %q:\n%s", want, list)
		}
	}
	for _, secret := range []string{docs, searchOnly, late, expired, docs[4:], owner.token} {
		if strings.Contains(list, secret) {
			t.Errorf("token list printed a token")
		}
	}
	var rows []struct {
		Name     string    `json:"name"`
		LastUsed time.Time `json:"last_used"`
	}
	out, _ = exec.Command(bin("dir2mcp"), "token", "list", "--dir", dir, "--json").Output()
	json.Unmarshal(out, &rows)
	for _, r := range rows {
		if r.Name == "docs" && r.LastUsed.IsZero() {
			t.Errorf("token list --json: docs has no last use: %s", out)
		}
	}
	p.stop()

	// Every refusal is in the audit log under the token's label.
	scoped := auditCLI(t, dir, "--token", "docs", "--errors")
	codes := map[string]int{}
	for _, r := range scoped {
		codes[r.Error]++
	}
	if codes["OUT_OF_SCOPE"] < 5 {
		t.Errorf("docs token refusals in the audit log: %v", codes)
	}
	if got := auditCLI(t, dir, "--token", "late", "--errors"); len(got) != 1 || got[0].Error != "UNAUTHORIZED" || got[0].Tool != "dir2mcp.open_file" {
		t.Errorf("revoked token's refusal: %+v", got)
	}
	if got := auditCLI(t, dir, "--token", "old", "--errors"); len(got) != 1 || got[0].Error != "UNAUTHORIZED" || got[0].Tool != "initialize" {
		t.Errorf("expired token's refusal: %+v", got)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ".dir2mcp", "tokens.json"))
	for _, secret := range []string{docs, searchOnly, late, expired} {
		if strings.Contains(string(raw), secret) || strings.Contains(string(raw), secret[4:]) {
			t.Error("tokens.json holds a token")
		}
	}
}

// TestToolsAllowlist: --tools hides and refuses the other tools, for the
// owner too.
func TestToolsAllowlist(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir, "--tools", "search,open_file,grep")...)
	c := newMCP(t, p.connect())
	c.initialize()
	var lt struct{ Tools []struct{ Name string } }
	json.Unmarshal(c.call("tools/list", map[string]any{}), &lt)
	if len(lt.Tools) != 3 || lt.Tools[0].Name != "dir2mcp.grep" || lt.Tools[1].Name != "dir2mcp.open_file" || lt.Tools[2].Name != "dir2mcp.search" {
		t.Errorf("tools/list = %+v", lt.Tools)
	}
	for _, name := range []string{"dir2mcp.list_files", "dir2mcp.find", "dir2mcp.checksum"} {
		if r := c.tool(name, map[string]any{"rel_path": "README.md"}); r.errCode() != "OUT_OF_SCOPE" {
			t.Errorf("%s outside --tools: %v", name, r.Content)
		}
	}
	if r := c.tool("dir2mcp.grep", map[string]any{"pattern": "ledger"}); r.IsError {
		t.Errorf("grep within --tools: %v", r.Content)
	}
	if out, err := exec.Command(bin("dir2mcp"), append(upArgs(dir), "--tools", "search,nope")...).CombinedOutput(); err == nil || !strings.Contains(string(out), "unknown tool") {
		t.Errorf("--tools with an unknown tool: %v %s", err, out)
	} else if code := err.(*exec.ExitError).ExitCode(); code != 2 {
		t.Errorf("--tools with an unknown tool: exit %d, want 2", code)
	}
}

// TestDiffExitCodes: 0 right after indexing, 1 with drift (added,
// modified, deleted), 3 for a missing root; the MCP tool agrees.
func TestDiffExitCodes(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("index: %v %s", err, out)
	}
	diff := func(args ...string) (string, int) {
		out, err := exec.Command(bin("dir2mcp"), append([]string{"diff", "--dir", dir}, args...)...).Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
	if out, code := diff(); code != 0 || out != "" {
		t.Fatalf("diff after index: exit %d %q", code, out)
	}
	writeFile(t, filepath.Join(dir, "docs", "new.md"), "# New\n")
	writeFile(t, filepath.Join(dir, "notes", "todo.txt"), "changed\n")
	os.Remove(filepath.Join(dir, "src", "geo", "distance.py"))
	out, code := diff()
	if code != 1 || out != "A  docs/new.md\nM  notes/todo.txt\nD  src/geo/distance.py\n" {
		t.Errorf("diff: exit %d\n%s", code, out)
	}
	out, code = diff("--json")
	var d struct{ Counts map[string]int }
	if json.Unmarshal([]byte(out), &d); code != 1 || d.Counts["added"] != 1 || d.Counts["modified"] != 1 || d.Counts["deleted"] != 1 {
		t.Errorf("diff --json: exit %d %s", code, out)
	}
	if err := exec.Command(bin("dir2mcp"), "diff", "--dir", filepath.Join(dir, "missing")).Run(); err == nil || err.(*exec.ExitError).ExitCode() != 3 {
		t.Errorf("diff of a missing root: %v", err)
	}
	p := start(t, "dir2mcp", nil, append(upArgs(dir), "--state-dir", filepath.Join(t.TempDir(), "st"))...)
	c := newMCP(t, p.connect())
	c.initialize()
	p.wait("index_complete", 60*time.Second)
	writeFile(t, filepath.Join(dir, "docs", "later.md"), "# Later\n")
	r := c.tool("dir2mcp.diff", map[string]any{})
	var md struct {
		Added []struct {
			RelPath string `json:"rel_path"`
		}
		Counts map[string]int
	}
	json.Unmarshal(r.StructuredContent, &md)
	if r.IsError || md.Counts["added"] < 1 || md.Added[0].RelPath != "docs/later.md" {
		t.Errorf("dir2mcp.diff: %s", r.StructuredContent)
	}
}
