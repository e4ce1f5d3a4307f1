// Package e2e holds dir2mcp's end-to-end tests: they build the real
// binaries, run them on copies of testdata corpora, and talk MCP to them over
// real sockets.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// binDir holds the binaries built once for all tests.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dir2mcp-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", dir+string(filepath.Separator), "./cmd/...")
	build.Dir = ".."
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building binaries:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func bin(name string) string { return filepath.Join(binDir, name) }

// copyCorpus copies testdata/<name> into a fresh temp dir and returns it.
func copyCorpus(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "testdata", name)
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// proc is a running dir2mcp process emitting NDJSON events on stdout.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	events chan record.Event
	stderr *syncBuffer
	lines  *syncBuffer // every stdout line, for leak checks
	done   chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs a binary with args; its stdout must be NDJSON events.
func start(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, events: make(chan record.Event, 1024), stderr: &syncBuffer{}, lines: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(bin(name), args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			p.lines.Write(append(sc.Bytes(), '\n'))
			var ev record.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Errorf("stdout line is not an NDJSON event: %q", sc.Text())
				continue
			}
			p.events <- ev
		}
		close(p.events)
		p.done <- p.cmd.Wait()
	}()
	t.Cleanup(p.stop)
	return p
}

func (p *proc) stop() {
	if p.cmd.ProcessState == nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
		}
	}
}

// wait returns the next event named name, failing after timeout.
func (p *proc) wait(name string, timeout time.Duration) record.Event {
	p.t.Helper()
	return p.waitAny(timeout, name)
}

// waitAny returns the next event named one of names, failing after
// timeout or on a fatal event.
func (p *proc) waitAny(timeout time.Duration, names ...string) record.Event {
	p.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-p.events:
			if !ok {
				p.t.Fatalf("process exited before %q event; stderr:\n%s", names, p.stderr.String())
			}
			if ev.Event == "fatal" {
				p.t.Fatalf("fatal event while waiting for %q: %v\nstderr:\n%s", names, ev.Data, p.stderr.String())
			}
			if slices.Contains(names, ev.Event) {
				return ev
			}
		case <-deadline:
			p.t.Fatalf("no %q event within %s; stderr:\n%s", names, timeout, p.stderr.String())
		}
	}
}

// server is an MCP endpoint started by `up` or `serve`.
type server struct {
	url   string
	token string
}

// connect waits for the connection event and reads the token it points to.
func (p *proc) connect() server {
	p.t.Helper()
	ev := p.wait("connection", 30*time.Second)
	s := server{url: ev.Data["url"].(string)}
	if f, ok := ev.Data["token_file"].(string); ok {
		b, err := os.ReadFile(f)
		if err != nil {
			p.t.Fatal(err)
		}
		s.token = strings.TrimSpace(string(b))
	}
	return s
}

// mcp is a minimal raw JSON-RPC-over-HTTP MCP client, so the tests see the
// wire exactly as any client does.
type mcp struct {
	t       *testing.T
	srv     server
	session string
	id      int
	header  http.Header // extra headers per request
}

func newMCP(t *testing.T, s server) *mcp { return &mcp{t: t, srv: s, header: http.Header{}} }

type rpcResponse struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rawPost sends one JSON-RPC message with extra headers and returns the
// HTTP response and its body, whatever the status.
func (c *mcp) rawPost(msg map[string]any, hdr map[string]string) (*http.Response, []byte) {
	c.t.Helper()
	body, _ := json.Marshal(msg)
	return c.rawPostBody(body, hdr)
}

// rawPostBody is rawPost with the body exactly as given.
func (c *mcp) rawPostBody(body []byte, hdr map[string]string) (*http.Response, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.srv.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.srv.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.srv.token)
	}
	if c.session != "" {
		req.Header.Set("MCP-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}

// post sends one JSON-RPC message and returns the HTTP response with the
// JSON-RPC response (if any) decoded from JSON or SSE.
func (c *mcp) post(msg map[string]any) (*http.Response, *rpcResponse) {
	c.t.Helper()
	resp, raw := c.rawPost(msg, nil)
	if resp.StatusCode != 200 {
		return resp, nil
	}
	var data []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, ln := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(ln, "data:") {
				data = []byte(strings.TrimSpace(strings.TrimPrefix(ln, "data:")))
			}
		}
	} else {
		data = raw
	}
	var r rpcResponse
	if err := json.Unmarshal(data, &r); err != nil {
		c.t.Fatalf("bad JSON-RPC response %q: %v", raw, err)
	}
	return resp, &r
}

// call sends a request and fails the test on a transport or JSON-RPC error.
func (c *mcp) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.id++
	resp, r := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if resp.StatusCode != 200 || r == nil {
		c.t.Fatalf("%s: HTTP %d", method, resp.StatusCode)
	}
	if r.Error != nil {
		c.t.Fatalf("%s: JSON-RPC error %d %s", method, r.Error.Code, r.Error.Message)
	}
	return r.Result
}

// initialize performs the MCP handshake and checks its wire contract.
func (c *mcp) initialize() {
	c.t.Helper()
	c.id++
	resp, r := c.post(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "1"},
	}})
	if resp.StatusCode != 200 || r == nil || r.Error != nil {
		c.t.Fatalf("initialize: HTTP %d %+v", resp.StatusCode, r)
	}
	c.session = resp.Header.Get("MCP-Session-Id")
	if c.session == "" {
		c.t.Fatal("initialize response has no MCP-Session-Id header")
	}
	var res struct {
		ProtocolVersion string                `json:"protocolVersion"`
		ServerInfo      struct{ Name string } `json:"serverInfo"`
	}
	json.Unmarshal(r.Result, &res)
	if res.ProtocolVersion != "2025-11-25" || res.ServerInfo.Name != "dir2mcp" {
		c.t.Fatalf("initialize result: %s", r.Result)
	}
	resp, _ = c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized", "params": map[string]any{}})
	if resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: HTTP %d, want 202", resp.StatusCode)
	}
}

// toolResult is a tools/call result.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (c *mcp) tool(name string, args map[string]any) toolResult {
	c.t.Helper()
	raw := c.call("tools/call", map[string]any{"name": name, "arguments": args})
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		c.t.Fatal(err)
	}
	return r
}

type hit struct {
	ChunkID int64   `json:"chunk_id"`
	RelPath string  `json:"rel_path"`
	Score   float64 `json:"score"`
	Snippet string  `json:"snippet"`
	Span    struct {
		Kind      string `json:"kind"`
		StartLine int    `json:"start_line"`
		EndLine   int    `json:"end_line"`
	} `json:"span"`
}

type searchOut struct {
	Hits             []hit `json:"hits"`
	IndexingComplete bool  `json:"indexing_complete"`
}

func (c *mcp) search(query string, extra map[string]any) searchOut {
	c.t.Helper()
	args := map[string]any{"query": query}
	for k, v := range extra {
		args[k] = v
	}
	r := c.tool("dir2mcp.search", args)
	if r.IsError {
		c.t.Fatalf("search %q failed: %s", query, r.Content[0].Text)
	}
	var out searchOut
	if err := json.Unmarshal(r.StructuredContent, &out); err != nil {
		c.t.Fatal(err)
	}
	return out
}

// toolErr returns the error code of a failed tool call ("" if it succeeded).
func (r toolResult) errCode() string {
	if !r.IsError {
		return ""
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	json.Unmarshal(r.StructuredContent, &e)
	return e.Error.Code
}

// runPipe runs the given commands as a shell-style pipeline and returns the
// last one's stdout.
func runPipe(t *testing.T, cmds ...*exec.Cmd) []byte {
	t.Helper()
	for i := 0; i < len(cmds)-1; i++ {
		out, err := cmds[i].StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmds[i+1].Stdin = out
	}
	var last bytes.Buffer
	cmds[len(cmds)-1].Stdout = &last
	var errs []*bytes.Buffer
	for _, c := range cmds {
		b := &bytes.Buffer{}
		c.Stderr = b
		errs = append(errs, b)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("%s: %v\n%s", c.Path, err, errs[i])
		}
	}
	return last.Bytes()
}
