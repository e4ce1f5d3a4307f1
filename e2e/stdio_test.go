package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestUpStdio launches `dir2mcp up --stdio` on a temp corpus as an MCP
// client would, searches while it indexes in the background, and checks
// that stdout carried nothing but valid JSON-RPC while the human output
// went to stderr.
func TestUpStdio(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	cmd := exec.Command(bin("dir2mcp"), "up", "--stdio", "--dir", dir, "--non-interactive")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	var raw []string
	responses := make(chan map[string]any, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			raw = append(raw, sc.Text())
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				if _, ok := m["id"]; ok {
					responses <- m
				}
			}
		}
		close(responses)
	}()
	id := 0
	send := func(method string, params any) {
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		io.WriteString(stdin, string(msg)+"\n")
	}
	recv := func() map[string]any {
		select {
		case m, ok := <-responses:
			if !ok {
				t.Fatalf("server closed stdout; stderr:\n%s", stderr.String())
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("no response; stderr:\n%s", stderr.String())
		}
		return nil
	}
	send("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "stdio-e2e", "version": "1"}})
	if r := recv(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	found := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && !found; {
		send("tools/call", map[string]any{"name": "dir2mcp.search", "arguments": map[string]any{"query": "quarterly ledger entries bank statement"}})
		r := recv()
		b, _ := json.Marshal(r["result"])
		found = strings.Contains(string(b), "src/ledger/ledger.go")
		if !found {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if !found {
		t.Fatalf("search over stdio never found the ledger; stderr:\n%s", stderr.String())
	}
	// The resource list follows the index after each embedded batch or within
	// the 3 s poll; a lexical search can see a file a moment earlier.
	var listed map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		send("resources/list", map[string]any{})
		if listed = recv(); strings.Contains(fmt.Sprint(listed["result"]), "dir2mcp:///src/ledger/ledger.go") {
			break
		}
	}
	if !strings.Contains(fmt.Sprint(listed["result"]), "dir2mcp:///src/ledger/ledger.go") {
		t.Errorf("resources/list over stdio: %v", listed)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after stdin closed: %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server did not exit when stdin closed")
	}
	for range responses {
	}
	if len(raw) < 3 {
		t.Fatalf("only %d stdout lines", len(raw))
	}
	for i, line := range raw {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" ||
			(m.Method == "" && m.Result == nil && m.Error == nil) {
			t.Errorf("stdout line %d is not JSON-RPC 2.0: %q", i+1, line)
		}
	}
	if !strings.Contains(stderr.String(), "MCP over stdio") {
		t.Errorf("startup notice missing from stderr:\n%s", stderr.String())
	}
}
