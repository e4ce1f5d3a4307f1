package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigClient: `dir2mcp config client` prints valid JSON in each
// client's format, for stdio (launching `up --stdio` on the root) and for
// HTTP (URL and a bearer header that references, never contains, the token).
func TestConfigClient(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	token := "tok-" + strings.Repeat("z", 40)
	writeFile(t, filepath.Join(dir, ".dir2mcp", "secret.token"), token+"\n")
	run := func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(bin("dir2mcp"), append([]string{"config", "client", "--dir", dir}, args...)...)
		cmd.Env = append(os.Environ(), "DIR2MCP_AUTH_TOKEN="+token)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if strings.Contains(string(out), token) {
			t.Errorf("%v printed the token", args)
		}
		var m map[string]any
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("%v: not JSON: %s", args, out)
		}
		return m
	}
	entry := func(m map[string]any, key string) map[string]any {
		t.Helper()
		servers, _ := m[key].(map[string]any)
		e, _ := servers["dir2mcp"].(map[string]any)
		if e == nil {
			t.Fatalf("no %s.dir2mcp in %v", key, m)
		}
		return e
	}
	for client, key := range map[string]string{"claude-desktop": "mcpServers", "claude-code": "mcpServers", "cursor": "mcpServers", "vscode": "servers"} {
		e := entry(run(client), key)
		args, _ := e["args"].([]any)
		if len(args) < 4 || args[0] != "up" || args[1] != "--stdio" || args[3] != dir || !strings.HasSuffix(e["command"].(string), "dir2mcp") {
			t.Errorf("%s stdio entry: %v", client, e)
		}
	}
	url := "http://127.0.0.1:8087/mcp"
	if e := entry(run("claude-code", "--transport", "http", "--url", url), "mcpServers"); e["type"] != "http" || e["url"] != url ||
		e["headers"].(map[string]any)["Authorization"] != "Bearer ${DIR2MCP_AUTH_TOKEN}" {
		t.Errorf("claude-code http: %v", e)
	}
	if e := entry(run("cursor", "--transport", "http", "--url", url), "mcpServers"); e["url"] != url ||
		e["headers"].(map[string]any)["Authorization"] != "Bearer ${env:DIR2MCP_AUTH_TOKEN}" {
		t.Errorf("cursor http: %v", e)
	}
	m := run("vscode", "--transport", "http", "--listen", "127.0.0.1:8087")
	if e := entry(m, "servers"); e["url"] != url || e["headers"].(map[string]any)["Authorization"] != "Bearer ${input:dir2mcp-token}" || m["inputs"] == nil {
		t.Errorf("vscode http: %v", m)
	}
	if e := entry(run("claude-desktop", "--transport", "http", "--url", url), "mcpServers"); e["command"] != "npx" {
		t.Errorf("claude-desktop http (mcp-remote bridge): %v", e)
	}
	cmd := exec.Command(bin("dir2mcp"), "config", "client", "--dir", dir, "emacs")
	if out, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "unknown client") {
		t.Errorf("unknown client: exit %d %s", cmd.ProcessState.ExitCode(), out)
	}
}

// TestConfigClientHTTPPinsPort: with the default random port, `config
// client --transport http` pins one (server.listen in .dir2mcp.yaml, said
// on stderr), so the printed URL still reaches the server after a restart —
// whether a server was running when the config was printed or not.
func TestConfigClientHTTPPinsPort(t *testing.T) {
	upCmd := func(dir string) []string { return []string{"up", "--dir", dir, "--json", "--non-interactive"} }
	clientURL := func(dir string) string {
		t.Helper()
		cmd := exec.Command(bin("dir2mcp"), "config", "client", "claude-code", "--transport", "http", "--dir", dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("config client: %v\n%s", err, stderr.String())
		}
		var m struct {
			MCPServers map[string]struct{ URL string } `json:"mcpServers"`
		}
		if err := json.Unmarshal(out, &m); err != nil || m.MCPServers["dir2mcp"].URL == "" {
			t.Fatalf("config client output: %v\n%s", err, out)
		}
		url := m.MCPServers["dir2mcp"].URL
		port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/")]
		cfg := filepath.Join(dir, ".dir2mcp.yaml")
		if !strings.Contains(stderr.String(), "Pinned the port: wrote server.listen: 127.0.0.1:"+port+" to "+cfg) {
			t.Errorf("config client did not say it pinned the port:\n%s", stderr.String())
		}
		if y, _ := os.ReadFile(cfg); !strings.Contains(string(y), "listen: 127.0.0.1:"+port) {
			t.Errorf("%s does not pin port %s:\n%s", cfg, port, y)
		}
		return url
	}
	works := func(url string, p *proc) {
		t.Helper()
		srv := p.connect()
		if srv.url != url {
			t.Fatalf("after a restart the server is at %s; the client config says %s", srv.url, url)
		}
		p.wait("index_complete", 60*time.Second)
		c := newMCP(t, server{url: url, token: srv.token})
		c.initialize()
		if hits := c.search("ledger balance", nil); len(hits.Hits) == 0 {
			t.Errorf("no hits through the pinned URL")
		}
	}

	// A server is running on a random port: its port is pinned.
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upCmd(dir)...)
	first := p.connect().url
	url := clientURL(dir)
	if url != first {
		t.Errorf("config client URL %s, running server at %s", url, first)
	}
	p.stop()
	p = start(t, "dir2mcp", nil, upCmd(dir)...)
	works(url, p)
	p.stop()

	// No server running: a free port is pinned before the first start.
	dir = copyCorpus(t, "corpus")
	url = clientURL(dir)
	p = start(t, "dir2mcp", nil, upCmd(dir)...)
	works(url, p)
	p.stop()
}
