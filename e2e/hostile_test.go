package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// surfaces calls every tool, resource and completion that names or returns
// files, and returns everything they answered, one response a line.
func surfaces(t *testing.T, c *mcp, queries, marks []string) string {
	t.Helper()
	var seen strings.Builder
	record := func(v any) {
		b, _ := json.Marshal(v)
		seen.Write(b)
		seen.WriteByte('\n')
	}
	for _, q := range queries {
		record(c.tool("dir2mcp.search", map[string]any{"query": q, "k": 50}))
		record(c.tool("dir2mcp.search", map[string]any{"query": q, "in": "title"}))
	}
	for _, m := range marks { // spelled as classes: the pattern echoed holds no marker
		record(c.tool("dir2mcp.grep", map[string]any{"pattern": spelled(m), "max_matches": 1000}))
	}
	record(c.tool("dir2mcp.ask", map[string]any{"question": strings.Join(queries, " "), "k": 20}))
	record(c.tool("dir2mcp.grep", map[string]any{"pattern": ".", "max_matches": 1000}))
	record(c.tool("dir2mcp.find", map[string]any{"limit": 1000}))
	record(c.tool("dir2mcp.list_files", map[string]any{"limit": 1000}))
	record(c.call("resources/list", map[string]any{}))
	for _, v := range []string{"", ".", "l", "link", "tok", "git", "gitdir/", "nm/", "link_state/", "state", "env", "rsa", "ID", "srv", "creds", ".e", "id_"} {
		record(c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "dir2mcp:///{+path}"},
			"argument": map[string]any{"name": "path", "value": v}}))
	}
	return seen.String()
}

// readBoth reads rel with open_file (whole and as exact bytes),
// resources/read and checksum, and returns the answers.
func readBoth(c *mcp, rel string) (string, []toolResult) {
	var rs []toolResult
	rs = append(rs, c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel}))
	rs = append(rs, c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel, "offset": 0, "length": 4096}))
	rs = append(rs, c.tool("dir2mcp.checksum", map[string]any{"rel_path": rel, "algorithms": []string{"sha256"}}))
	c.id++
	_, rr := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "resources/read", "params": map[string]any{"uri": "dir2mcp:///" + rel}})
	b, _ := json.Marshal(rs)
	rb, _ := json.Marshal(rr)
	return string(b) + string(rb), rs
}

// TestSymlinkExclusionsEverywhere (issue 14, 0b): links to excluded files
// and directories (.env, id_rsa, the config file, .git, node_modules, the
// state dir and its bearer token), names differing only in case, and a root
// reached through a symlinked path: no tool, resource or completion serves
// or names them, with links followed or not.
func TestSymlinkExclusionsEverywhere(t *testing.T) {
	for _, follow := range []bool{false, true} {
		t.Run(fmt.Sprintf("follow_symlinks=%v", follow), func(t *testing.T) { symlinkExclusions(t, follow) })
	}
}

func symlinkExclusions(t *testing.T, follow bool) {
	real := t.TempDir()
	marks := map[string]string{}
	plant := func(rel string) {
		m := "LEAKMARK" + strconv.Itoa(len(marks)) + "Q"
		marks[rel] = m
		writeFile(t, filepath.Join(real, rel), "secret marker "+m+" kept here\n")
	}
	for _, rel := range []string{".env", "id_rsa", ".git/config", "node_modules/pkg/index.js", ".ENV", "ID_RSA", "server.PEM", "sub/.Env", "deploy.KEY", "Node_Modules/x.js"} {
		plant(rel)
	}
	cfg := "version: 1\n# config marker LEAKMARKCFGQ\n"
	if follow {
		cfg += "ingest:\n  follow_symlinks: true\n"
	}
	writeFile(t, filepath.Join(real, ".dir2mcp.yaml"), cfg)
	marks[".dir2mcp.yaml"] = "LEAKMARKCFGQ"
	writeFile(t, filepath.Join(real, "ok.txt"), "an ordinary readable note about zebras\n")
	links := map[string]string{
		"link_env.txt": ".env", "link_rsa.txt": "id_rsa", "link_cfg.txt": ".dir2mcp.yaml", "link_git.txt": ".git/config",
		"gitdir": ".git", "nm": "node_modules", "tok.txt": ".dir2mcp/secret.token", "link_state": ".dir2mcp",
		"link_upper.txt": ".ENV", "link_pem.txt": "server.PEM", "sub/link_env.md": ".Env", "ok_link.txt": "ok.txt",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(real, l)); err != nil {
			t.Fatal(err)
		}
	}
	// The root is served through a link to it (as on macOS, where the temp
	// dir is one).
	dir := filepath.Join(t.TempDir(), "link-to-root")
	if err := os.Symlink(real, dir); err != nil {
		t.Fatal(err)
	}
	p := start(t, "dir2mcp", []string{"DIR2MCP_SERVER_RATE_LIMIT_RPS=0", "DIR2MCP_SERVER_RATE_LIMIT_EXPENSIVE_RPS=0"}, upArgs(dir)...)
	srv := p.connect()
	p.wait("index_complete", 60*time.Second)
	c := newMCP(t, srv)
	c.initialize()

	if b, _ := os.ReadFile(filepath.Join(real, ".dir2mcp", "secret.token")); strings.TrimSpace(string(b)) != srv.token {
		t.Fatalf("token file not where expected")
	}
	var served strings.Builder
	excludedNames := []string{"gitdir/config", "nm/pkg/index.js", "link_state/secret.token", "link_state/connection.json", "LINK_STATE/secret.token",
		".dir2mcp/secret.token", ".DIR2MCP/secret.token", ".Git/config", "NODE_MODULES/pkg/index.js", "sub/.ENV", "SERVER.pem", "server.pem"}
	for l, target := range links {
		if target != "ok.txt" {
			excludedNames = append(excludedNames, l)
		}
	}
	for rel := range marks {
		excludedNames = append(excludedNames, rel)
	}
	for _, rel := range excludedNames {
		out, rs := readBoth(c, rel)
		served.WriteString(out)
		for _, r := range rs {
			if code := r.errCode(); code != "FORBIDDEN" && code != "FILE_NOT_FOUND" && !(code == "INVALID_FIELD" && strings.Contains(string(r.StructuredContent), "is a directory")) {
				t.Errorf("%s: %q, want FORBIDDEN: %.200s", rel, code, r.StructuredContent)
			}
		}
	}
	// The ordinary file and a link to it are served.
	for _, rel := range []string{"ok.txt", "ok_link.txt"} {
		if r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel}); r.IsError || !strings.Contains(string(r.StructuredContent), "zebras") {
			t.Errorf("open_file %s: %s", rel, r.StructuredContent)
		}
	}
	queries := []string{"secret marker", "kept here", "secret marker kept here", "zebras", "config marker"}
	var ms []string
	for _, m := range marks {
		ms = append(ms, m)
	}
	all := served.String() + surfaces(t, c, queries, append(ms, srv.token, srv.token[:20]))
	if !strings.Contains(all, "zebras") {
		t.Fatal("the ordinary file should be served")
	}
	for rel, m := range marks {
		if strings.Contains(all, m) {
			t.Errorf("content of the excluded %s reached a client", rel)
		}
	}
	if strings.Contains(all, srv.token) {
		t.Errorf("the bearer token reached a client")
	}
	// No listing or completion names an excluded file or a link to one.
	var names strings.Builder
	c2 := newMCP(t, srv)
	c2.initialize()
	names.WriteString(surfaces(t, c2, []string{"zebras"}, nil))
	for _, n := range []string{"link_env", "link_rsa", "link_cfg", "link_git", "gitdir", "\"nm/", "tok.txt", "link_state", "link_upper", "link_pem", "sub/link_env",
		".env", ".ENV", "id_rsa", "ID_RSA", "server.PEM", "deploy.KEY", "node_modules", "Node_Modules", ".dir2mcp", ".git/"} {
		if strings.Contains(names.String(), n) {
			i := strings.Index(names.String(), n)
			t.Errorf("an excluded name %q is listed or completed: …%s…", n, names.String()[max(0, i-120):min(len(names.String()), i+80)])
		}
	}
}

// threads is the thread count of process pid.
func threads(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skip("no /proc:", err)
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(ln, "Threads:"); ok {
			v, _ := strconv.Atoi(strings.TrimSpace(n))
			return v
		}
	}
	return 0
}

// TestSpecialFileFlood (issue 14, 0a): 2,000 concurrent reads of a FIFO
// and a socket inside the root through open_file (lines and exact bytes),
// checksum and resources/read are all answered with a typed error; the
// server's thread count stays bounded and it keeps serving.
func TestSpecialFileFlood(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.txt"), "an ordinary readable note about zebras\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.txt"), 0o644); err != nil {
		t.Skip("no FIFOs:", err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock.txt"))
	if err != nil {
		t.Skip("no unix sockets:", err)
	}
	defer l.Close()
	if err := os.Symlink("pipe.txt", filepath.Join(dir, "pipe_link.md")); err != nil {
		t.Fatal(err)
	}
	p := start(t, "dir2mcp", []string{"DIR2MCP_SERVER_RATE_LIMIT_RPS=0", "DIR2MCP_SERVER_RATE_LIMIT_EXPENSIVE_RPS=0"}, upArgs(dir)...)
	srv := p.connect()
	p.wait("index_complete", 60*time.Second)
	pid := p.cmd.Process.Pid
	before := threads(t, pid)

	const n = 2000
	clients := make([]*mcp, 8)
	for i := range clients {
		clients[i] = newMCP(t, srv)
		clients[i].initialize()
	}
	var mu sync.Mutex
	codes := map[string]int{}
	peak := 0
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if th := threads(t, pid); th > peak {
					peak = th
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := &mcp{t: t, srv: srv, session: clients[i%len(clients)].session, id: i, header: map[string][]string{}}
			rel := []string{"pipe.txt", "sock.txt", "pipe_link.md"}[i%3]
			var code string
			switch i % 4 {
			case 0:
				code = c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel}).errCode()
			case 1:
				code = c.tool("dir2mcp.open_file", map[string]any{"rel_path": rel, "offset": 0, "length": 10}).errCode()
			case 2:
				code = c.tool("dir2mcp.checksum", map[string]any{"rel_path": rel}).errCode()
			case 3:
				_, r := c.post(map[string]any{"jsonrpc": "2.0", "id": i, "method": "resources/read", "params": map[string]any{"uri": "dir2mcp:///" + rel}})
				if r != nil && r.Error != nil {
					var d struct{ Code string }
					json.Unmarshal([]byte(strings.SplitN(r.Error.Message, ":", 2)[0]), &d)
					code = strings.SplitN(r.Error.Message, ":", 2)[0]
				}
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	close(stop)
	<-sampled
	t.Logf("threads: %d before, peak %d during %d calls; codes %v", before, peak, n, codes)
	for code, k := range codes {
		if code != "DOC_TYPE_UNSUPPORTED" && code != "FORBIDDEN" {
			t.Errorf("%d calls answered %q, want a typed refusal", k, code)
		}
	}
	if peak > 64 {
		t.Errorf("thread count peaked at %d (from %d)", peak, before)
	}
	if r := clients[0].tool("dir2mcp.open_file", map[string]any{"rel_path": "ok.txt"}); r.IsError {
		t.Errorf("server stopped serving after the flood: %v", r.Content)
	}
}

// TestOddFileNames (issue 14, 0g): files whose names hold "\", "%2e", "%"
// or other URI-special bytes are indexed, listed, opened by rel_path and by
// their resource URI, found by search, and a second run counts them
// unchanged, not deleted.
func TestOddFileNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{`back\slash.txt`, "dot%2ename.txt", "pct%41.md", "100%.txt", "semi;colon.txt", "q?mark.txt", "hash#tag.txt",
		"sp ace.txt", "ümlaut.txt", "a..b.txt", "..dots.txt", `sub\dir/x%2e%2e.txt`, "%2e%2e", "plus+sign.txt"}
	words := map[string]string{}
	for i, n := range names {
		words[n] = "oddword" + strconv.Itoa(i) + "x"
		writeFile(t, filepath.Join(dir, n), "a note whose name is odd: "+words[n]+"\n")
	}
	run := func() (*mcp, map[string]any) {
		p := start(t, "dir2mcp", []string{"DIR2MCP_SERVER_RATE_LIMIT_RPS=0"}, upArgs(dir)...)
		srv := p.connect()
		done := p.wait("index_complete", 60*time.Second)
		c := newMCP(t, srv)
		c.initialize()
		t.Cleanup(p.stop)
		return c, done.Data
	}
	c, done := run()
	if done["indexed"] != float64(len(names)) || done["deleted"] != float64(0) || done["errors"] != float64(0) {
		t.Errorf("first run: %v", done)
	}
	var list struct {
		Files []struct {
			RelPath string `json:"rel_path"`
		}
	}
	json.Unmarshal(c.tool("dir2mcp.list_files", map[string]any{"limit": 100}).StructuredContent, &list)
	listed := map[string]bool{}
	for _, f := range list.Files {
		listed[f.RelPath] = true
	}
	var res struct {
		Resources []struct{ URI, Name string }
	}
	json.Unmarshal(c.call("resources/list", map[string]any{}), &res)
	uris := map[string]string{}
	for _, r := range res.Resources {
		uris[r.Name] = r.URI
	}
	for _, n := range names {
		if !listed[n] {
			t.Errorf("%q not listed (%v)", n, listed)
		}
		r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": n})
		if r.IsError || !strings.Contains(string(r.StructuredContent), words[n]) {
			t.Errorf("open_file %q: %s", n, r.StructuredContent)
		}
		var hits []string
		for _, h := range c.search(words[n], nil).Hits {
			hits = append(hits, h.RelPath)
		}
		if len(hits) == 0 || hits[0] != n {
			t.Errorf("search %s finds %q, want %q", words[n], hits, n)
		}
		uri, ok := uris[n]
		if !ok {
			for _, r := range res.Resources {
				if strings.HasSuffix(r.Name, n) || r.Name == n {
					uri, ok = r.URI, true
				}
			}
		}
		if !ok {
			t.Errorf("%q has no resource: %v", n, res.Resources)
			continue
		}
		c.id++
		_, rr := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "resources/read", "params": map[string]any{"uri": uri}})
		if rr == nil || rr.Error != nil || !strings.Contains(string(rr.Result), words[n]) {
			t.Errorf("resources/read %s: %+v", uri, rr)
		}
	}
	// A client path in another spelling still resolves to the file only
	// when no file has the name as written: "%2e%2e" is that file, and an
	// encoded escape is refused.
	if r := c.tool("dir2mcp.open_file", map[string]any{"rel_path": "%2e%2e/x"}); r.errCode() != "PATH_OUTSIDE_ROOT" {
		t.Errorf("%%2e%%2e/x: %q", r.errCode())
	}
	c.tool("dir2mcp.stats", map[string]any{})
	// The second run finds every file unchanged.
	_, done = run()
	if done["unchanged"] != float64(len(names)) || done["deleted"] != float64(0) {
		t.Errorf("second run: %v", done)
	}
}

// TestTokenThroughLinkedRootWithoutExcludes (issue 14, 0b): with no path
// excludes at all and the root reached through a link, links into the
// state dir still never serve the bearer token.
func TestTokenThroughLinkedRootWithoutExcludes(t *testing.T) {
	real := t.TempDir()
	writeFile(t, filepath.Join(real, ".dir2mcp.yaml"), "version: 1\nsecurity:\n  path_excludes:\ningest:\n  follow_symlinks: true\n")
	writeFile(t, filepath.Join(real, "ok.txt"), "an ordinary readable note about zebras\n")
	os.Symlink(".dir2mcp/secret.token", filepath.Join(real, "tok.txt"))
	os.Symlink(".dir2mcp", filepath.Join(real, "link_state"))
	dir := filepath.Join(t.TempDir(), "link-to-root")
	if err := os.Symlink(real, dir); err != nil {
		t.Fatal(err)
	}
	p := start(t, "dir2mcp", []string{"DIR2MCP_SERVER_RATE_LIMIT_RPS=0"}, upArgs(dir)...)
	srv := p.connect()
	p.wait("index_complete", 60*time.Second)
	c := newMCP(t, srv)
	c.initialize()
	var all strings.Builder
	for _, rel := range []string{"tok.txt", "link_state/secret.token", ".dir2mcp/secret.token", "link_state/connection.json"} {
		out, rs := readBoth(c, rel)
		all.WriteString(out)
		for _, r := range rs {
			if code := r.errCode(); code != "FORBIDDEN" {
				t.Errorf("%s: %q, want FORBIDDEN", rel, code)
			}
		}
	}
	listed := surfaces(t, c, []string{"zebras", "token"}, []string{srv.token, srv.token[:20]})
	all.WriteString(listed)
	if !strings.Contains(all.String(), "zebras") {
		t.Fatal("the ordinary file should be served")
	}
	if strings.Contains(all.String(), srv.token) {
		t.Error("the bearer token reached a client")
	}
	for _, n := range []string{"tok.txt", "link_state", "secret.token"} {
		if strings.Contains(listed, `"`+n) {
			t.Errorf("%s is listed or completed", n)
		}
	}
}
