package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
