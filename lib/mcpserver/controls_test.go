package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/cite"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeKey is a credential of a default redaction kind, assembled so this
// file does not itself look like a leak.
var fakeKey = "sk" + "-proj-" + "Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0Ff9"

// scopedCall runs a tools/call through the controls as a request made with
// a token labelled label of scope would arrive from the HTTP transport.
func scopedCall(t *testing.T, s *Server, label string, scope *corpus.Scope, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	s.MCP()
	raw, _ := json.Marshal(args)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: raw},
		Extra: &mcp.RequestExtra{TokenInfo: Credential(label, scope, time.Time{}), Header: map[string][]string{"X": {"1"}}}}
	dispatch := func(ctx context.Context, method string, r mcp.Request) (mcp.Result, error) {
		for _, d := range s.tools() {
			if d.tool.Name == tool {
				return s.wrap(d)(ctx, r.(*mcp.CallToolRequest))
			}
		}
		t.Fatalf("no tool %s", tool)
		return nil, nil
	}
	res, err := s.controls(dispatch)(context.Background(), "tools/call", req)
	if err != nil {
		t.Fatal(err)
	}
	return toolResult(res)
}

func codeOf(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if !r.IsError {
		return ""
	}
	b, _ := json.Marshal(r.StructuredContent)
	var e struct{ Error struct{ Code string } }
	json.Unmarshal(b, &e)
	return e.Error.Code
}

func TestScopeRefusesToolsAndPaths(t *testing.T) {
	files := map[string]string{"docs/a.md": "alpha\n", "docs/b.md": "beta\n", "src/c.go": "package c\n", "secret/d.txt": "delta\n"}
	s, _ := newIndexedServer(t, files, map[string]string{"secret/d.txt": "SECRET_EXCLUDED"})
	scope := &corpus.Scope{Label: "ci", Tools: []string{"dir2mcp.open_file", "dir2mcp.list_files"}, PathPrefixes: []string{"docs/"}}

	if r := scopedCall(t, s, "ci", scope, "dir2mcp.stats", nil); codeOf(t, r) != "OUT_OF_SCOPE" {
		t.Errorf("a tool outside the token's list: %v", r.Content)
	}
	if r := scopedCall(t, s, "ci", scope, "dir2mcp.open_file", map[string]any{"rel_path": "src/c.go"}); codeOf(t, r) != "OUT_OF_SCOPE" {
		t.Errorf("a path outside the prefixes: %v", r.Content)
	}
	if r := scopedCall(t, s, "ci", scope, "dir2mcp.open_file", map[string]any{"rel_path": "docs/../src/c.go"}); codeOf(t, r) != "OUT_OF_SCOPE" {
		t.Errorf("a path leaving the prefix with ..: %v", r.Content)
	}
	r := scopedCall(t, s, "ci", scope, "dir2mcp.open_file", map[string]any{"rel_path": "docs/a.md"})
	if r.IsError {
		t.Fatalf("in scope: %v", r.Content)
	}
	for _, c := range r.Content {
		if l, ok := c.(*mcp.ResourceLink); ok && l.URI != ResourceURI("docs/a.md") {
			t.Errorf("link %s", l.URI)
		}
	}
	r = scopedCall(t, s, "ci", scope, "dir2mcp.list_files", nil)
	var list listResult
	b, _ := json.Marshal(r.StructuredContent)
	json.Unmarshal(b, &list)
	if list.Total != 2 || len(list.Files) != 2 || !strings.HasPrefix(list.Files[0].RelPath, "docs/") {
		t.Errorf("list within docs/: %+v", list)
	}
	// The owner's view of excluded files is scoped too.
	r = scopedCall(t, s, "ci", scope, "dir2mcp.list_files", map[string]any{"excluded": true})
	b, _ = json.Marshal(r.StructuredContent)
	json.Unmarshal(b, &list)
	if list.Total != 0 {
		t.Errorf("excluded files outside the scope listed: %+v", list)
	}
	r = scopedCall(t, s, "owner", nil, "dir2mcp.list_files", map[string]any{"excluded": true})
	b, _ = json.Marshal(r.StructuredContent)
	json.Unmarshal(b, &list)
	if list.Total != 1 || list.Files[0].RelPath != "secret/d.txt" {
		t.Errorf("owner's excluded listing: %+v", list)
	}
}

// A result naming a file outside the scope (a tool that forgot to filter)
// is withheld.
func TestScopeNetWithholdsStrayPaths(t *testing.T) {
	s, _ := newIndexedServer(t, map[string]string{"docs/a.md": "x\n"}, nil)
	s.MCP()
	res := &mcp.CallToolResult{StructuredContent: map[string]any{"hits": []any{map[string]any{"rel_path": "src/x.go"}}},
		Content: []mcp.Content{&mcp.TextContent{Text: "x"}, &mcp.ResourceLink{URI: ResourceURI("src/x.go")}}}
	ctx := corpus.WithScope(context.Background(), &corpus.Scope{PathPrefixes: []string{"docs/"}})
	if n := s.secureResult(ctx, res); n != -1 {
		t.Errorf("secureResult = %d, want -1", n)
	}
	res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}, &mcp.ResourceLink{URI: ResourceURI("src/x.go")}}}
	s.secureResult(ctx, res)
	if len(res.Content) != 1 {
		t.Error("a resource link outside the scope was kept")
	}
}

func TestServerToolsAllowlist(t *testing.T) {
	s := indexedServer(t, map[string]string{"a.txt": "alpha\n"}, nil)
	s.Config.Server.Tools = []string{"dir2mcp.list_files", "dir2mcp.open_file"}
	cs := connect(t, s)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"dir2mcp.list_files", "dir2mcp.open_file"}) {
		t.Errorf("tools/list = %v", names)
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.search", Arguments: map[string]any{"query": "x"}})
	if err != nil || codeOf(t, r) != "OUT_OF_SCOPE" {
		t.Errorf("a hidden tool: %+v %v", r, err)
	}
	if _, err := ResolveTools("--tools", []string{"search", "dir2mcp.nope"}); err == nil || !strings.Contains(err.Error(), "dir2mcp.open_file") {
		t.Errorf("unknown tool: %v", err)
	}
	if got, _ := ResolveTools("--tools", []string{"search", "dir2mcp.search", " ask "}); !slices.Equal(got, []string{"dir2mcp.search", "dir2mcp.ask"}) {
		t.Errorf("ResolveTools = %v", got)
	}
}

// Credentials inside a served file are masked in open_file (any line
// range), resources/read and list_files; the result counts them; the
// audit log records the calls without the key.
func TestRedactionAndAudit(t *testing.T) {
	body := "# Notes\nkey: " + fakeKey + "\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----\nlast line\n"
	s := indexedServer(t, map[string]string{"notes.md": body, "bin.bin": "\x00\x01password=hunter2xyz\x00"}, nil)
	logPath := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(audit.Options{Path: logPath, MaxBytes: 1 << 20, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.Audit = l
	cs := connect(t, s)
	ctx := context.Background()

	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{"rel_path": "notes.md"}})
	if err != nil || r.IsError {
		t.Fatalf("open_file: %+v %v", r, err)
	}
	all, _ := json.Marshal(r)
	if strings.Contains(string(all), "Zx8Cv7Bn6Mm5") || strings.Contains(string(all), "MIIEowIBAAKCAQEAu1SU1") {
		t.Fatalf("open_file leaked: %s", all)
	}
	var out struct {
		Content    string
		Redactions int
	}
	b, _ := json.Marshal(r.StructuredContent)
	json.Unmarshal(b, &out)
	if out.Redactions != 2 || strings.Count(out.Content, "\n") != strings.Count(body, "\n") || !strings.HasSuffix(out.Content, "last line\n") {
		t.Errorf("open_file content %q, redactions %d", out.Content, out.Redactions)
	}
	// A line range inside the key block: masked although it holds no BEGIN line.
	r, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{"rel_path": "notes.md", "start_line": 4, "end_line": 5}})
	if all, _ := json.Marshal(r); strings.Contains(string(all), "MIIEowIBAAKCAQEAu1SU1") || strings.Contains(string(all), "VTLw7onLRnrq0") {
		t.Errorf("a line range inside a key block leaked: %s", all)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ResourceURI("notes.md")})
	if err != nil || strings.Contains(rr.Contents[0].Text, "Zx8Cv7Bn6Mm5") || !strings.Contains(rr.Contents[0].Text, "[REDACTED]") {
		t.Errorf("resources/read: %+v %v", rr, err)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ResourceURI("bin.bin")})
	if err != nil || strings.Contains(string(rr.Contents[0].Blob), "hunter2xyz") || len(rr.Contents[0].Blob) != 22 {
		t.Errorf("resources/read blob: %q %v", rr.Contents[0].Blob, err)
	}
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{"rel_path": "../x " + fakeKey}})
	cs.Close()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var recs []audit.Record
	audit.Read(logPath, audit.Filter{}, func(r audit.Record) error { recs = append(recs, r); return nil })
	if len(recs) != 5 {
		t.Fatalf("%d audit records, want 5: %+v", len(recs), recs)
	}
	first, last := recs[0], recs[4]
	if first.Tool != "dir2mcp.open_file" || first.Transport != "stdio" || first.Client != "t" || first.ClientVersion != "1" ||
		first.Session == "" || first.Redactions != 2 || first.ResultBytes == 0 || first.Args["rel_path"] != "notes.md" || len(first.ArgsSHA256) != 64 {
		t.Errorf("first record %+v", first)
	}
	if recs[2].Tool != "resources/read" || recs[2].Args["uri"] != ResourceURI("notes.md") {
		t.Errorf("resources/read record %+v", recs[2])
	}
	if last.Error != "PATH_OUTSIDE_ROOT" || !strings.Contains(last.Args["rel_path"].(string), "[REDACTED]") {
		t.Errorf("failed call record %+v", last)
	}
	raw, _ := json.Marshal(recs)
	if strings.Contains(string(raw), "Zx8Cv7Bn6Mm5") || strings.Contains(string(raw), "alpha") {
		t.Errorf("the audit log holds a key or content: %s", raw)
	}
}

// Citations stay true in files whose credentials are masked: the index and
// open_file mask the same way, so every hit's snippet is found in the
// opened lines (HTML source maps included) and no hit shows a key.
func TestMaskedCitationsAreTrue(t *testing.T) {
	pem := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5QhA1QbVtY3Fh\noAoGCCqGSM49AwEHoUQDQgAEp3rQ8nK1mX5wZ2vY7uT4sR6qP9oN0lM3kJ8hG1fE\n-----END EC PRIVATE KEY-----\n"
	files := map[string][]byte{
		"guide.html": []byte("<html><head><title>Deploy guide</title></head><body>\n<h1>Deploy the walrus service</h1>\n<p>The walrus deploy uses the key <code>" + fakeKey + "</code> and\nthe <a href=\"https://ops:W4lrusPw9@dash.internal/\">walrus dashboard</a> for checks.</p>\n<ul><li>walrus step one</li><li>walrus step two</li></ul>\n</body></html>\n"),
		"notes.md":   []byte("# Walrus notes\n\nThe walrus signing key:\n\n" + pem + "\nWalrus rotation happens monthly.\n"),
		"deploy.go":  []byte("package deploy\n\n// walrusDSN is the walrus database.\nconst walrusDSN = \"postgres://walrus:Pg5ecr3tW0rd@db/walrus\"\n"),
	}
	_, cs, _ := newCiteServer(t, files)
	ctx := context.Background()
	hits := 0
	for _, q := range []string{"walrus deploy key", "walrus signing key rotation", "walrus database dsn", "walrus dashboard checks"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.search", Arguments: map[string]any{"query": q, "k": 10}})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %v %+v", q, err, res)
		}
		var out struct {
			Hits []struct {
				RelPath string      `json:"rel_path"`
				DocType string      `json:"doc_type"`
				Snippet string      `json:"snippet"`
				Span    record.Span `json:"span"`
			}
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		for _, h := range out.Hits {
			hits++
			for _, secret := range []string{"Zx8Cv7Bn6Mm5", "W4lrusPw9", "MHcCAQEEIBkg4LVWM9", "Pg5ecr3tW0rd"} {
				if strings.Contains(h.Snippet, secret) {
					t.Errorf("%s snippet shows a credential: %q", h.RelPath, h.Snippet)
				}
			}
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{
				"rel_path": h.RelPath, "start_line": h.Span.StartLine, "end_line": h.Span.EndLine}})
			if err != nil || r.IsError {
				t.Fatalf("open_file %s: %v %+v", h.RelPath, err, r)
			}
			var o openResult
			b, _ := json.Marshal(r.StructuredContent)
			json.Unmarshal(b, &o)
			if !cite.Check(h.Snippet, o.Content, h.DocType) {
				t.Errorf("%s:L%d-L%d: snippet %q not in the opened lines %q", h.RelPath, h.Span.StartLine, h.Span.EndLine, h.Snippet, o.Content)
			}
		}
	}
	if hits < 4 {
		t.Errorf("only %d hits", hits)
	}
}

// A result the controls encode is byte for byte what json.Marshal (and so
// the SDK) writes for it, whatever its content, so the wire answer and
// the audit log's result_bytes are those of the result.
func TestEncodeResultIsJSONMarshal(t *testing.T) {
	sc, err := json.Marshal(map[string]any{"hits": []any{map[string]any{"snippet": "a <b> & \"c\"\n\u2028 é \x00", "score": 0.5}}, "structuredContent": 0})
	if err != nil {
		t.Fatal(err)
	}
	size := int64(42)
	link := &mcp.ResourceLink{URI: "dir2mcp:///a.go", Name: "a.go", Title: "a <go>", Description: "\"text\":\"\x00\"", MIMEType: "text/plain", Size: &size}
	texts := []string{"", "1 result <x> & y\n", "\x00", "\"text\":\"\\u0000\"", "bad utf-8 \xff\xfe end", "\u2028\u2029\t\r\b\f\x01\x7f", strings.Repeat("snippet line\n", 500)}
	var results []*mcp.CallToolResult
	for _, text := range texts {
		results = append(results,
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}, link}, StructuredContent: json.RawMessage(sc)},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(sc), IsError: true},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text, Meta: mcp.Meta{"k": text}}, &mcp.TextContent{Text: "\x00"}}, StructuredContent: map[string]any{"a": "<b>", "structuredContent": 0}},
			&mcp.CallToolResult{Meta: mcp.Meta{"x402/payment-response": map[string]any{"ok": true}}, Content: []mcp.Content{link, &mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(sc)},
			&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text, Annotations: &mcp.Annotations{Priority: 0.5}}, &mcp.ImageContent{Data: []byte{0, 1, 2}, MIMEType: "image/png"}}},
		)
	}
	results = append(results, &mcp.CallToolResult{Content: []mcp.Content{}}, &mcp.CallToolResult{},
		&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, link, &mcp.TextContent{Text: "b"}}, StructuredContent: json.RawMessage(sc)},
		&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ResourceLink{URI: "dir2mcp:///b", Name: "b"}, link}, StructuredContent: json.RawMessage(sc)},
		&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.ResourceLink{URI: "dir2mcp:///b", Name: "b", Icons: []mcp.Icon{{Source: "x"}}}}, StructuredContent: json.RawMessage(sc)})
	if !frameOK() {
		t.Error("the frame of a common result is no longer the SDK's encoding: encodeCommon is off")
	}
	for i, res := range results {
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if got := encodeResult(res); !bytes.Equal(got, want) {
			t.Errorf("result %d: encodeResult =\n%s\njson.Marshal =\n%s", i, got, want)
		}
		enc, err := json.Marshal(&encodedResult{res: res, raw: encodeResult(res)})
		if err != nil || !bytes.Equal(enc, want) {
			t.Errorf("result %d: encodedResult marshals to %s (%v)", i, enc, err)
		}
	}
}

// appendJSONString writes a string exactly as json.Marshal does: every
// byte value alone and in mixes, invalid UTF-8, the separators U+2028 and
// U+2029.
func TestAppendJSONStringIsJSONMarshal(t *testing.T) {
	var cases []string
	for b := 0; b < 256; b++ {
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	cases = append(cases, "", "\u2028\u2029", "é€😀", "\xe2\x80", "\xed\xa0\x80", "<script>&amp;</script>", strings.Repeat("snippet\tline \"q\"\n", 200))
	rng := rand.New(rand.NewSource(3))
	for range 2000 {
		const alphabet = "ab<&\"\\\n\x00\x7f\xe2\x80\xa8\xc3\xa9\xff"
		b := make([]byte, rng.Intn(40))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, json.Marshal %s", s, got, want)
		}
	}
}
