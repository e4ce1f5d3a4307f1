package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
)

// TestUpEventsAndSecrets checks the --json event contract (SPEC §3.2), a
// per-file failure reported as file_error while indexing completes, and that
// no secret reaches stdout, stderr, connection.json, corpus.json or the
// config snapshot.
func TestUpEventsAndSecrets(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	// Text for the first 8 KB (so scan classifies it as text), control bytes after: extraction fails.
	bad := strings.Repeat("plain text line\n", 600) + strings.Repeat("\x01\x02\x03\x04", 20000)
	writeFile(t, filepath.Join(dir, "notes", "corrupt.txt"), bad)
	const apiKey = "mistral-test-key-0123456789abcdef"
	const token = "env-token-0123456789abcdefghijklmnop"
	// The key is really used (embeddings, OCR) against a fake Mistral.
	fake := mistraltest.New()
	defer fake.Close()
	fake.Key = apiKey
	p := start(t, "dir2mcp", []string{"MISTRAL_API_KEY=" + apiKey, "DIR2MCP_AUTH_TOKEN=" + token, "DIR2MCP_MISTRAL_BASE_URL=" + fake.URL}, upArgs(dir)...)

	var names []string
	var conn map[string]any
	deadline := time.After(60 * time.Second)
	for done := false; !done; {
		select {
		case ev, ok := <-p.events:
			if !ok {
				t.Fatalf("exited early: %s", p.stderr.String())
			}
			names = append(names, ev.Event)
			switch ev.Event {
			case "connection":
				conn = ev.Data
			case "file_error":
				if ev.Data["rel_path"] != "notes/corrupt.txt" || ev.Data["code"] != "EXTRACT_FAILED" {
					t.Errorf("file_error %v", ev.Data)
				}
			case "index_complete":
				done = true
				if ev.Data["errors"].(float64) != 1 {
					t.Errorf("index_complete errors=%v, want 1", ev.Data["errors"])
				}
			}
			if ev.TS == "" || ev.Level == "" || ev.Type != "event" {
				t.Errorf("malformed event %+v", ev)
			}
		case <-deadline:
			t.Fatalf("no index_complete; events %v", names)
		}
	}
	if fake.Calls(mistraltest.Embeddings) == 0 {
		t.Error("the Mistral key was not used for embeddings")
	}
	order := strings.Join(names, ",")
	for _, want := range []string{"index_loaded,server_started,connection", "file_error", "scan_progress", "embed_progress"} {
		if !strings.Contains(order, want) {
			t.Errorf("events %s lack %s", order, want)
		}
	}
	if conn["transport"] != "mcp_streamable_http" || conn["token_source"] != "env" ||
		conn["headers"].(map[string]any)["MCP-Protocol-Version"] != "2025-11-25" {
		t.Errorf("connection data %v", conn)
	}
	// The env token works.
	c := newMCP(t, server{url: conn["url"].(string), token: token})
	c.initialize()

	// status works while up runs.
	out, err := exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--json").Output()
	if err != nil {
		t.Fatalf("status during up: %v", err)
	}
	var st struct {
		Documents  int64
		Connection *struct{ URL string }
	}
	json.Unmarshal(out, &st)
	if st.Documents == 0 || st.Connection == nil || st.Connection.URL != conn["url"] {
		t.Errorf("status during up: %s", out)
	}

	// No secret anywhere.
	state := filepath.Join(dir, ".dir2mcp")
	texts := map[string]string{"stdout": p.lines.String(), "stderr": p.stderr.String(), "status": string(out)}
	for _, f := range []string{".dir2mcp.yaml.snapshot", "connection.json", "corpus.json"} {
		b, err := os.ReadFile(filepath.Join(state, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		texts[f] = string(b)
	}
	for where, text := range texts {
		for _, secret := range []string{apiKey, token} {
			if strings.Contains(text, secret) {
				t.Errorf("secret leaked into %s", where)
			}
		}
	}
	if !strings.Contains(texts[".dir2mcp.yaml.snapshot"], "MISTRAL_API_KEY") {
		t.Errorf("snapshot does not record the key's source:\n%s", texts[".dir2mcp.yaml.snapshot"])
	}
	var corpus struct {
		Root     string
		Indexing struct {
			Running     bool  `json:"running"`
			ChunksTotal int64 `json:"chunks_total"`
		}
	}
	json.Unmarshal([]byte(texts["corpus.json"]), &corpus)
	if corpus.Indexing.ChunksTotal == 0 || corpus.Indexing.Running {
		t.Errorf("corpus.json: %s", texts["corpus.json"])
	}
}

// TestServeSeesAnotherWriter: a running dir2mcp-serve picks up chunks and
// vectors written by a separate indexer process, without a restart.
func TestServeSeesAnotherWriter(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	if err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--quiet", "--non-interactive").Run(); err != nil {
		t.Fatal(err)
	}
	p := start(t, "dir2mcp-serve", nil, "--dir", dir, "--json", "--listen", "127.0.0.1:0")
	c := newMCP(t, p.connect())
	c.initialize()
	if r := c.search("periscope calibration tolerances", nil); len(r.Hits) > 0 && r.Hits[0].RelPath == "notes/periscope.md" {
		t.Fatal("found before it was written")
	}
	writeFile(t, filepath.Join(dir, "notes", "periscope.md"), "# Periscope\n\nThe periscope calibration tolerances are two arc minutes.\n")
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--quiet", "--non-interactive").CombinedOutput(); err != nil {
		t.Fatalf("index while serving: %v\n%s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := c.search("periscope calibration tolerances", nil)
		if len(r.Hits) > 0 && r.Hits[0].RelPath == "notes/periscope.md" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never saw the new file: %+v", r.Hits)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Vector files written by the other process are loaded too.
	var stats struct {
		Vectors map[string]struct{ Count int } `json:"vectors"`
	}
	json.Unmarshal(c.tool("dir2mcp.stats", map[string]any{}).StructuredContent, &stats)
	if stats.Vectors["text"].Count == 0 {
		t.Errorf("stats vectors %+v", stats.Vectors)
	}
}
