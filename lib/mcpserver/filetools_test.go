package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outputSchemas returns the resolved output schema of every served tool.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	out := map[string]*jsonschema.Resolved{}
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tl.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tl.Name, err)
		}
		out[tl.Name] = r
	}
	return out
}

// checked calls a tool and checks its structured result against the
// tool's output schema, then decodes it into out.
func (f *providerFixture) checked(schemas map[string]*jsonschema.Resolved, name string, args map[string]any, out any) string {
	f.t.Helper()
	res, code := f.call(name, args, out)
	b, _ := json.Marshal(res.StructuredContent)
	var v any
	json.Unmarshal(b, &v)
	if err := schemas[name].Validate(v); err != nil {
		f.t.Errorf("%s(%v): result does not match the output schema: %v\n%s", name, args, err, b)
	}
	return code
}

type grepOut struct {
	Matches []struct {
		RelPath string   `json:"rel_path"`
		Line    int      `json:"line"`
		Page    int      `json:"page"`
		Span    *spanOut `json:"span"`
		Text    string   `json:"text"`
		Match   string   `json:"match"`
		Column  int      `json:"column"`
		Before  []string `json:"before"`
	} `json:"matches"`
	Truncated       bool   `json:"truncated"`
	TruncatedReason string `json:"truncated_reason"`
	NextCursor      string `json:"next_cursor"`
}

// grep finds lines in text files, PDF pages, transcripts and archive
// members, each cited as search citations are, and pages through them.
func TestGrepAcrossDocumentKinds(t *testing.T) {
	f := newProviderServer(t, true, nil)
	schemas := outputSchemas(t, f.cs)
	var g grepOut
	if code := f.checked(schemas, grepTool, map[string]any{"pattern": "vault code"}, &g); code != "" {
		t.Fatal(code)
	}
	if len(g.Matches) != 1 || g.Matches[0].RelPath != "digital.pdf" || g.Matches[0].Page != 2 || g.Matches[0].Span.Kind != "page" {
		t.Errorf("PDF match: %+v", g.Matches)
	}
	g = grepOut{}
	f.checked(schemas, grepTool, map[string]any{"pattern": "quarterly BUDGET", "case": "insensitive"}, &g)
	if len(g.Matches) != 1 || g.Matches[0].RelPath != "standup.wav" || g.Matches[0].Span.Kind != "time" || g.Matches[0].Span.StartMs != 1200 {
		t.Errorf("transcript match: %+v", g.Matches)
	}
	g = grepOut{}
	f.checked(schemas, grepTool, map[string]any{"pattern": `systemctl \w+`, "glob": "**/*.txt"}, &g)
	if len(g.Matches) != 1 || g.Matches[0].RelPath != "docs.zip!/docs/runbook.txt" || g.Matches[0].Span.Kind != "lines" || g.Matches[0].Match != "systemctl restart" {
		t.Errorf("member match: %+v", g.Matches)
	}
	g = grepOut{}
	f.checked(schemas, grepTool, map[string]any{"pattern": "overlap", "literal": true, "context": 2, "doc_types": []string{"md"}, "path_prefix": "notes"}, &g)
	if len(g.Matches) != 1 || g.Matches[0].RelPath != "notes.md" || g.Matches[0].Line != 3 || strings.Join(g.Matches[0].Before, "|") != "# Design|" ||
		g.Matches[0].Column != 41 {
		t.Errorf("notes.md match: %+v", g.Matches)
	}
	// Paging one line at a time reaches every match once.
	var all []string
	g = grepOut{}
	f.checked(schemas, grepTool, map[string]any{"pattern": "(?i)the|a"}, &g)
	for _, m := range g.Matches {
		all = append(all, m.RelPath+":"+m.Text)
	}
	var paged []string
	args := map[string]any{"pattern": "(?i)the|a", "max_matches": 1}
	for i := 0; ; i++ {
		g = grepOut{}
		if code := f.checked(schemas, grepTool, args, &g); code != "" {
			t.Fatal(code)
		}
		for _, m := range g.Matches {
			paged = append(paged, m.RelPath+":"+m.Text)
		}
		if g.NextCursor == "" {
			break
		}
		if !g.Truncated || g.TruncatedReason != "max_matches" || i > 100 {
			t.Fatalf("page %d: %+v", i, g)
		}
		args["cursor"] = g.NextCursor
	}
	if strings.Join(paged, "\n") != strings.Join(all, "\n") || len(all) < 4 {
		t.Errorf("paged %d lines, one page %d", len(paged), len(all))
	}
	// A cursor belongs to its arguments.
	args["pattern"] = "other"
	if code := f.checked(schemas, grepTool, args, nil); code != "INVALID_FIELD" {
		t.Errorf("cursor with other arguments: %s", code)
	}
}

// find, list_files, checksum and exact reads, each result in its schema.
func TestFindChecksumAndExactReads(t *testing.T) {
	f := newProviderServer(t, true, nil)
	schemas := outputSchemas(t, f.cs)
	var fr struct {
		Total int `json:"total"`
		Files []struct {
			RelPath  string `json:"rel_path"`
			Size     int64  `json:"size_bytes"`
			MIMEType string `json:"mime_type"`
		} `json:"files"`
		NextCursor string `json:"next_cursor"`
	}
	f.checked(schemas, findTool, map[string]any{"sort": "size", "order": "desc"}, &fr)
	if fr.Total < 6 || fr.Files[0].Size < fr.Files[len(fr.Files)-1].Size {
		t.Errorf("find by size: %+v", fr)
	}
	var order []string
	for _, e := range fr.Files {
		order = append(order, e.RelPath)
	}
	var paged []string
	args := map[string]any{"sort": "size", "order": "desc", "limit": 2}
	for {
		fr.NextCursor = ""
		f.checked(schemas, findTool, args, &fr)
		for _, e := range fr.Files {
			paged = append(paged, e.RelPath)
		}
		if fr.NextCursor == "" {
			break
		}
		args["cursor"] = fr.NextCursor
	}
	if strings.Join(paged, ",") != strings.Join(order, ",") {
		t.Errorf("find pages %v, want %v", paged, order)
	}
	f.checked(schemas, findTool, map[string]any{"mime": "application/pdf"}, &fr)
	if fr.Total != 1 || fr.Files[0].RelPath != "digital.pdf" {
		t.Errorf("find by mime: %+v", fr)
	}
	f.checked(schemas, findTool, map[string]any{"doc_types": []string{"md"}, "min_size": 10, "max_size": 1000, "modified_since": "2000-01-01"}, &fr)
	if fr.Total != 2 { // notes.md and docs.zip!/docs/sub/design.md
		t.Errorf("find md: %+v", fr)
	}
	for args, want := range map[string]string{`{"modified_since":"yesterday"}`: "INVALID_FIELD", `{"min_size":5,"max_size":4}`: "INVALID_RANGE", `{"mime":"pdf"}`: "INVALID_FIELD", `{"path_prefix":"../"}`: "PATH_OUTSIDE_ROOT"} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if code := f.checked(schemas, findTool, a, nil); code != want {
			t.Errorf("find %s: %s, want %s", args, code, want)
		}
	}
	var lr struct {
		Files []struct {
			RelPath string `json:"rel_path"`
		} `json:"files"`
		NextCursor string `json:"next_cursor"`
	}
	f.checked(schemas, "dir2mcp.list_files", map[string]any{"limit": 1}, &lr)
	if len(lr.Files) != 1 || lr.NextCursor == "" {
		t.Fatalf("list_files page: %+v", lr)
	}
	first := lr.Files[0].RelPath
	f.checked(schemas, "dir2mcp.list_files", map[string]any{"limit": 1, "cursor": lr.NextCursor}, &lr)
	if len(lr.Files) != 1 || lr.Files[0].RelPath <= first {
		t.Errorf("list_files next page: %+v after %s", lr, first)
	}

	var ck struct {
		Size    int64             `json:"size_bytes"`
		Digests map[string]string `json:"digests"`
	}
	f.checked(schemas, "dir2mcp.checksum", map[string]any{"rel_path": "digital.pdf", "algorithms": []string{"sha256", "md5"}}, &ck)
	raw, _ := os.ReadFile(filepath.Join(f.s.Root.Dir(), "digital.pdf"))
	sum := sha256.Sum256(raw)
	if ck.Digests["sha256"] != hex.EncodeToString(sum[:]) || len(ck.Digests["md5"]) != 32 || ck.Size != int64(len(raw)) {
		t.Errorf("checksum: %+v", ck)
	}
	var o struct {
		Content    string `json:"content"`
		Encoding   string `json:"encoding"`
		Length     int    `json:"length"`
		EOF        bool   `json:"eof"`
		NextOffset *int64 `json:"next_offset"`
	}
	f.checked(schemas, "dir2mcp.open_file", map[string]any{"rel_path": "digital.pdf", "offset": 0, "length": 64}, &o)
	b, err := base64.StdEncoding.DecodeString(o.Content)
	if o.Encoding != "base64" || err != nil || string(b) != string(raw[:64]) || o.EOF || o.NextOffset == nil || *o.NextOffset != 64 {
		t.Errorf("binary range: %+v", o)
	}
	o = struct {
		Content    string `json:"content"`
		Encoding   string `json:"encoding"`
		Length     int    `json:"length"`
		EOF        bool   `json:"eof"`
		NextOffset *int64 `json:"next_offset"`
	}{}
	f.checked(schemas, "dir2mcp.open_file", map[string]any{"rel_path": "notes.md", "offset": 2, "length": 1 << 20}, &o)
	if o.Encoding != "utf-8" || !strings.HasPrefix(o.Content, "Design\n") || !o.EOF || o.NextOffset != nil {
		t.Errorf("text range: %+v", o)
	}
	for args, want := range map[string]string{
		`{"rel_path":"notes.md","length":1048577}`:             "INVALID_RANGE",
		`{"rel_path":"notes.md","offset":99999}`:               "INVALID_RANGE",
		`{"rel_path":"notes.md","offset":0,"start_line":1}`:    "INVALID_FIELD",
		`{"rel_path":"notes.md","offset":4611686018427387903}`: "INVALID_RANGE",
	} {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		if code := f.checked(schemas, "dir2mcp.open_file", a, nil); code != want {
			t.Errorf("open_file %s: %s, want %s", args, code, want)
		}
	}
}

// search pages past k without repeating a hit, and max_tokens cuts hits
// and says how many.
func TestSearchPagesAndBudgets(t *testing.T) {
	f := newProviderServer(t, true, nil)
	schemas := outputSchemas(t, f.cs)
	type page struct {
		Hits []struct {
			ChunkID int64  `json:"chunk_id"`
			Snippet string `json:"snippet"`
		} `json:"hits"`
		Truncated   bool   `json:"truncated"`
		OmittedHits int    `json:"omitted_hits"`
		NextCursor  string `json:"next_cursor"`
	}
	var one page
	f.checked(schemas, searchTool, map[string]any{"query": "the", "k": 50}, &one)
	seen := map[int64]bool{}
	args := map[string]any{"query": "the", "k": 1}
	n := 0
	for {
		var p page
		if code := f.checked(schemas, searchTool, args, &p); code != "" {
			t.Fatal(code)
		}
		for _, h := range p.Hits {
			if seen[h.ChunkID] {
				t.Fatalf("hit %d shown twice", h.ChunkID)
			}
			seen[h.ChunkID] = true
		}
		if p.NextCursor == "" || n > 60 {
			break
		}
		n++
		args["cursor"] = p.NextCursor
	}
	if len(seen) < len(one.Hits) || len(seen) < 3 {
		t.Errorf("pages showed %d hits, one page of 50 %d", len(seen), len(one.Hits))
	}
	var cut page
	f.checked(schemas, searchTool, map[string]any{"query": "the", "k": 10, "max_tokens": 50}, &cut)
	if !cut.Truncated || cut.OmittedHits == 0 || len(cut.Hits) == 0 || cut.NextCursor == "" {
		t.Errorf("max_tokens: %d hits, omitted %d", len(cut.Hits), cut.OmittedHits)
	}
	// A best hit over the budget on its own is clipped, and says so.
	var whole, clipped page
	f.checked(schemas, searchTool, map[string]any{"query": "vault code", "k": 1}, &whole)
	f.checked(schemas, searchTool, map[string]any{"query": "vault code", "k": 1, "max_tokens": 50}, &clipped)
	if len(whole.Hits) != 1 || len(clipped.Hits) != 1 || whole.Truncated || !clipped.Truncated ||
		tokens(clipped.Hits[0].Snippet)+tokens("digital.pdf")+hitOverhead > 50 ||
		len(clipped.Hits[0].Snippet) >= len(whole.Hits[0].Snippet) || !strings.HasPrefix(whole.Hits[0].Snippet, clipped.Hits[0].Snippet) {
		t.Errorf("clipped hit: %q (truncated %v) of %q", clipped.Hits[0].Snippet, clipped.Truncated, whole.Hits[0].Snippet)
	}
}

func TestClipTokens(t *testing.T) {
	text := strings.Repeat("alpha beta gamma delta\n", 20)
	got, cut := clipTokens(text, 20)
	if !cut || tokens(got) > 20 || !strings.HasPrefix(text, got) || strings.HasSuffix(got, "\n") {
		t.Errorf("clipTokens lines: %q %v", got, cut)
	}
	if got, cut := clipTokens("short", 20); cut || got != "short" {
		t.Errorf("under the budget: %q %v", got, cut)
	}
	long := strings.Repeat("x", 1000)
	if got, cut := clipTokens(long, 10); !cut || len(got) != 10*charsPerToken {
		t.Errorf("one long line: %d bytes %v", len(got), cut)
	}
}
