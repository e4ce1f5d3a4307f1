package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Interop: the real server driven by the official SDK clients — the
// go-sdk client and the TypeScript SDK (@modelcontextprotocol/sdk) — over
// Streamable HTTP (with bearer auth) and over stdio.

// toolCalls are valid arguments for every tool on testdata/corpus.
var toolCalls = map[string]map[string]any{
	"dir2mcp.search":     {"query": "reconcile ledger entries", "k": 5},
	"dir2mcp.ask":        {"question": "How are ledger entries reconciled?", "k": 3},
	"dir2mcp.open_file":  {"rel_path": "src/ledger/ledger.go", "start_line": 1, "end_line": 10},
	"dir2mcp.list_files": {"limit": 5},
	"dir2mcp.stats":      {},
	"dir2mcp.diff":       {"limit": 5},
	"dir2mcp.grep":       {"pattern": "Entry", "context": 1, "max_matches": 2},
	"dir2mcp.find":       {"glob": "**/*.go", "sort": "size"},
	"dir2mcp.checksum":   {"rel_path": "src/ledger/ledger.go", "algorithms": []string{"sha256", "md5"}},
}

// providerToolCalls are valid arguments for the tools that need a model
// provider; testdata/corpus is served without keys, so each fails with
// CONFIG_INVALID saying how to configure one.
var providerToolCalls = map[string]map[string]any{
	"dir2mcp.transcribe":         {"rel_path": "README.md"},
	"dir2mcp.annotate":           {"rel_path": "README.md", "schema_json": map[string]any{"type": "object"}},
	"dir2mcp.transcribe_and_ask": {"rel_path": "README.md", "question": "what is this?"},
	"dir2mcp.ask_audio":          {"question": "How are ledger entries reconciled?"},
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// indexedServeArgs indexes a fresh corpus copy and returns serve's args.
func indexedCorpus(t *testing.T) string {
	t.Helper()
	dir := copyCorpus(t, "corpus")
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	return dir
}

func TestInteropGoSDK(t *testing.T) {
	t.Run("http", func(t *testing.T) {
		dir := indexedCorpus(t)
		p := start(t, "dir2mcp", nil, "serve", "--dir", dir, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
		srv := p.connect()
		client := sdk.NewClient(&sdk.Implementation{Name: "interop-go", Version: "1"}, nil)
		tr := &sdk.StreamableClientTransport{Endpoint: srv.url, HTTPClient: &http.Client{Transport: bearerRT{srv.token}}}
		cs, err := client.Connect(context.Background(), tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		session := cs.ID()
		exerciseGoSDK(t, cs)
		if err := cs.Close(); err != nil { // DELETE
			t.Errorf("close: %v", err)
		}
		c := newMCP(t, srv)
		c.session = session
		if resp, _ := c.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("session after DELETE: HTTP %d, want 404", resp.StatusCode)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		dir := indexedCorpus(t)
		client := sdk.NewClient(&sdk.Implementation{Name: "interop-go", Version: "1"}, nil)
		cmd := exec.Command(bin("dir2mcp-serve"), "--stdio", "--dir", dir, "--non-interactive")
		cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		exerciseGoSDK(t, cs)
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
}

func exerciseGoSDK(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	ctx := context.Background()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %s", v)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != len(toolCalls)+len(providerToolCalls) {
		t.Fatalf("tools/list: %v %v", tools, err)
	}
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "dir2mcp:///src/ledger/ledger.go") || slices.Contains(uris, "dir2mcp:///secrets/creds.txt") {
		t.Errorf("resources: %v", uris)
	}
	tpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpls.ResourceTemplates) != 1 {
		t.Errorf("templates: %v %v", tpls, err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) < 3 {
		t.Fatalf("prompts: %v %v", prompts, err)
	}
	for _, p := range prompts.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "src/ledger/ledger.go"
		}
		if r, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: p.Name, Arguments: args}); err != nil || len(r.Messages) == 0 {
			t.Errorf("prompts/get %s: %v", p.Name, err)
		}
	}
	comp, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource", URI: tpls.ResourceTemplates[0].URITemplate},
		Argument: sdk.CompleteParamsArgument{Name: "path", Value: "src/le"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"src/ledger/ledger.go"}) {
		t.Errorf("complete: %+v %v", comp, err)
	}
	for name, args := range toolCalls {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError || res.StructuredContent == nil {
			t.Errorf("%s: %v %+v", name, err, res)
			continue
		}
		if name == "dir2mcp.search" {
			links := 0
			for _, c := range res.Content {
				if l, ok := c.(*sdk.ResourceLink); ok && strings.HasPrefix(l.URI, "dir2mcp:///") {
					links++
				}
			}
			if links == 0 {
				t.Errorf("search result has no resource_link items")
			}
		}
	}
	for name, args := range providerToolCalls {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		b, _ := json.Marshal(res.StructuredContent)
		if err != nil || !res.IsError || !strings.Contains(string(b), `"code":"`) {
			t.Errorf("%s without providers: %v %s", name, err, b)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "dir2mcp.search", Arguments: map[string]any{"query": "x", "k": 0}})
	if err != nil || !res.IsError {
		t.Errorf("invalid k: %v %+v", err, res)
	}
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "dir2mcp.nope", Arguments: map[string]any{}})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: %v, want JSON-RPC -32602", err)
	}
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "dir2mcp:///src/ledger/ledger.go"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "ReconcileLedgerEntries") {
		t.Errorf("read text resource: %v", err)
	}
	rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "dir2mcp:///assets/blob.bin"})
	if err != nil || len(rr.Contents[0].Blob) == 0 || rr.Contents[0].Text != "" {
		t.Errorf("read binary resource: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "dir2mcp:///secrets/creds.txt"}); err == nil {
		t.Error("secret file readable as a resource")
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "dir2mcp:///../outside"}); err == nil {
		t.Error("path outside the root readable as a resource")
	}
}

// nodeClient returns the node binary and a directory holding
// interop-client.mjs next to the TypeScript SDK, installing them with
// scripts/conformance/node.sh when npm is available; it skips the test
// when Node.js is absent.
func nodeClient(t *testing.T) (node, script string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("Node.js/npm not installed: skipping the TypeScript SDK interop test (.ci/run installs it)")
	}
	install := exec.Command("bash", "-c", `. scripts/conformance/node.sh && ensure_node >&2 && echo "$NODE22" && echo "$SDK_DIR"`)
	install.Dir = ".."
	out, err := install.Output()
	if err != nil {
		t.Fatalf("installing node@22 and @modelcontextprotocol/sdk: %v", err)
	}
	lines := strings.Fields(string(out))
	node, sdk := lines[0], lines[1]
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "scripts", "conformance", "interop-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "interop-client.mjs"), string(src))
	if err := os.Symlink(filepath.Join(sdk, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return node, filepath.Join(dir, "interop-client.mjs")
}

// tsReport is what interop-client.mjs prints.
type tsReport struct {
	Error           any     `json:"error"`
	ProtocolVersion *string `json:"protocolVersion"`
	Tools           []struct{ Name string }
	Resources       []struct{ URI, Name, MimeType string }
	Templates       []struct{ URITemplate string }
	Prompts         []struct{ Name string }
	PromptResults   map[string]struct{ Messages []any }
	Completion      struct{ Completion struct{ Values []string } }
	SetLevel        map[string]any
	Calls           []struct {
		Name   string
		Error  any
		Result struct {
			IsError           bool
			Content           []struct{ Type, URI string }
			StructuredContent map[string]any
		}
	}
	UnknownTool struct {
		Error struct{ Code int }
	}
	Read struct {
		Contents []struct{ URI, Text string }
	}
	Logs              []struct{ Level string }
	SessionTerminated bool
}

func checkTSReport(t *testing.T, r tsReport, http bool) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("client error: %v", r.Error)
	}
	if len(r.Tools) != len(toolCalls)+len(providerToolCalls) || len(r.Resources) == 0 || len(r.Templates) != 1 || len(r.Prompts) < 3 {
		t.Errorf("lists: %d tools, %d resources, %d templates, %d prompts", len(r.Tools), len(r.Resources), len(r.Templates), len(r.Prompts))
	}
	for name, pr := range r.PromptResults {
		if len(pr.Messages) == 0 {
			t.Errorf("prompt %s has no messages", name)
		}
	}
	if len(r.Completion.Completion.Values) == 0 || r.SetLevel == nil {
		t.Errorf("completion %v / setLevel %v", r.Completion, r.SetLevel)
	}
	called := map[string]bool{}
	for i, c := range r.Calls {
		last := i == len(r.Calls)-1 // invalid arguments on purpose
		if c.Error != nil || c.Result.IsError != last {
			t.Errorf("%s: error=%v isError=%v", c.Name, c.Error, c.Result.IsError)
		}
		called[c.Name] = true
	}
	for name := range toolCalls {
		if !called[name] {
			t.Errorf("%s not called", name)
		}
	}
	if r.UnknownTool.Error.Code != -32602 {
		t.Errorf("unknown tool: %+v, want -32602", r.UnknownTool)
	}
	if len(r.Read.Contents) != 1 || r.Read.Contents[0].Text == "" {
		t.Errorf("resources/read: %+v", r.Read)
	}
	if len(r.Logs) == 0 {
		t.Error("no notifications/message after logging/setLevel debug")
	}
	if http && !r.SessionTerminated {
		t.Error("session not terminated with DELETE")
	}
}

func TestInteropTypeScriptSDK(t *testing.T) {
	node, script := nodeClient(t)
	t.Run("http", func(t *testing.T) {
		dir := indexedCorpus(t)
		p := start(t, "dir2mcp", nil, "serve", "--dir", dir, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
		srv := p.connect()
		cmd := exec.Command(node, script, "http", srv.url)
		cmd.Env = append(os.Environ(), "MCP_TOKEN="+srv.token)
		runTS(t, cmd, true)
	})
	t.Run("stdio", func(t *testing.T) {
		dir := copyCorpus(t, "corpus")
		if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive", "--quiet").CombinedOutput(); err != nil {
			t.Fatalf("index: %v\n%s", err, out)
		}
		runTS(t, exec.Command(node, script, "stdio", bin("dir2mcp"), "up", "--stdio", "--dir", dir, "--non-interactive"), false)
	})
}

func runTS(t *testing.T, cmd *exec.Cmd, http bool) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
		}
	}()
	out, err := cmd.Output()
	close(done)
	var r tsReport
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("TS client: %v %v\nstdout: %s\nstderr: %s", err, jerr, out, stderr.String())
	}
	if err != nil {
		t.Errorf("TS client exit: %v\n%s", err, stderr.String())
	}
	checkTSReport(t, r, http)
}
