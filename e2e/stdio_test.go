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

// sendLine writes one raw line to the server's stdin.
func (c *stdioClient) sendLine(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatalf("writing to the server: %v; stderr:\n%s", err, c.stderr.String())
	}
}

// recv returns the next response (a stdout message with an id).
func (c *stdioClient) recv() map[string]json.RawMessage {
	c.t.Helper()
	select {
	case m, ok := <-c.responses:
		if !ok {
			c.t.Fatalf("server closed stdout; stderr:\n%s", c.stderr.String())
		}
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatalf("no response; stderr:\n%s", c.stderr.String())
	}
	return nil
}

// TestUpStdioSurvivesBadLines feeds `up --stdio` malformed lines of every
// kind: each gets a JSON-RPC error (-32700 for what is not JSON, -32600 for
// JSON that is not a valid request, with the id when one could be read),
// the server keeps serving, and ids come back exactly as sent.
func TestUpStdioSurvivesBadLines(t *testing.T) {
	c := startStdio(t, "up", "--stdio", "--dir", copyCorpus(t, "corpus"), "--non-interactive")
	c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "stdio-e2e", "version": "1"}})
	c.notify("notifications/initialized")
	deep := `{"jsonrpc":"2.0","id":41,"method":"ping","params":{"a":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`
	huge := `{"jsonrpc":"2.0","id":42,"method":"ping","params":{"pad":"` + strings.Repeat("x", 20<<20) + `"}}`
	cases := []struct {
		line string
		code int
		id   string // the id the error must carry, as JSON
	}{
		{`garbage`, -32700, `null`},
		{`{`, -32700, `null`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, -32700, `null`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"} trailing`, -32700, `null`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, -32700, `null`},
		{`{'jsonrpc':'2.0'}`, -32700, `null`},
		{`{"jsonrpc":"2.0","id":3,"method":"ping",}`, -32700, `null`},
		{`NaN`, -32700, `null`},
		{"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, `null`},
		{huge, -32600, `null`},
		{`[]`, -32600, `null`},
		{`[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]`, -32600, `null`},
		{`null`, -32600, `null`},
		{`42`, -32600, `null`},
		{`"ping"`, -32600, `null`},
		{`true`, -32600, `null`},
		{`{}`, -32600, `null`},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, `7`},
		{`{"id":8,"method":"ping"}`, -32600, `8`},
		{`{"jsonrpc":"2.0","id":9}`, -32600, `9`},
		{`{"jsonrpc":"2.0","id":10,"method":5}`, -32600, `10`},
		{`{"jsonrpc":"2.0","id":11,"error":"bad"}`, -32600, `11`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, `null`},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, `null`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, `null`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, `null`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, `1.5`},
		{`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, -32600, `9223372036854775808`},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, `9007199254740993`},
		{`{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}`, -32600, `-9223372036854775809`},
		{`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`, -32600, `1e3`},
		{deep, -32600, `41`},
	}
	for i, tc := range cases {
		c.sendLine(tc.line)
		m := c.recv()
		var e struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(m["error"], &e) != nil || e.Code != tc.code || e.Message == "" {
			t.Errorf("case %d %.80q: want error %d, got %v", i, tc.line, tc.code, m)
		}
		if got := string(m["id"]); got != tc.id {
			t.Errorf("case %d %.80q: id %s, want %s", i, tc.line, got, tc.id)
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("case %d: answer is not JSON-RPC 2.0: %v", i, m)
		}
	}
	c.sendLine("") // a blank line is skipped, not answered
	// Ids the protocol allows come back byte for byte.
	for _, id := range []string{`9007199254740991`, `-9007199254740991`, `0`, `-1`, `"9223372036854775808"`, `"Ω id with spaces"`, `""`} {
		c.sendLine(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		m := c.recv()
		if string(m["id"]) != id || m["result"] == nil {
			t.Errorf("ping with id %s: %v", id, m)
		}
	}
	// Still serving: a tool call works.
	c.sendLine(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"dir2mcp.stats","arguments":{}}}`)
	if m := c.recv(); string(m["id"]) != `"after"` || m["result"] == nil || strings.Contains(string(m["result"]), `"isError":true`) {
		t.Errorf("tools/call after bad lines: %v", m)
	}
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after stdin closed: %v\n%s", err, c.stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("server did not exit when stdin closed")
	}
}
