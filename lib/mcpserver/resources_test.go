package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newIndexedServer builds a Server over files written to a temp root and
// recorded in a real store, with a small page size, and connects a client.
func newIndexedServer(t testing.TB, files map[string]string, status map[string]string) (*Server, *mcp.ClientSession) {
	t.Helper()
	s := indexedServer(t, files, status)
	return s, connect(t, s)
}

// indexedServer is newIndexedServer's Server, not yet built.
func indexedServer(t testing.TB, files map[string]string, status map[string]string) *Server {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	dir := state.Resolve(root, "")
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	err = st.Update(ctx, func(tx *store.Tx) error {
		for rel, body := range files {
			d := record.NewDocument()
			d.RelPath, d.DocType, d.SizeBytes, d.Status = rel, record.DocText, int64(len(body)), record.StatusOK
			if strings.HasSuffix(rel, ".bin") {
				d.DocType = record.DocBinaryIgnored
			}
			if code, ok := status[rel]; ok {
				d.Status, d.Code = record.StatusSkipped, code
			}
			id, err := tx.UpsertDocument(d, strings.ToUpper(rel))
			if err != nil {
				return err
			}
			if err := tx.SetDocumentAbout(id, "about "+rel, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rootfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		t.Fatal(err)
	}
	return &Server{Store: st, Root: r, Dir: dir, Exclude: ex, Config: cfg, PageSize: 2}
}

// connect serves s over an in-memory transport to a new client session.
func connect(t testing.TB, s *Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, stt := mcp.NewInMemoryTransports()
	if _, err := s.MCP().Connect(ctx, stt, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestResourcesListReadAndComplete(t *testing.T) {
	files := map[string]string{
		"a.txt": "alpha\n", "docs/b.md": "# B\n", "docs/c.txt": "gamma\n", "img/d.bin": "\x00\x01\x02\xff",
		"leak.txt": "token = abcdefghijklmnopqrstuvwxyz0123\n", "src/e.go": "package e\n",
	}
	_, cs := newIndexedServer(t, files, map[string]string{"leak.txt": "SECRET_EXCLUDED", "img/d.bin": "BINARY_SKIPPED"})
	ctx := context.Background()

	var names []string
	pages := 0
	var cursor string
	for {
		res, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, r := range res.Resources {
			names = append(names, r.Name)
			if r.URI != ResourceURI(r.Name) || r.Title != strings.ToUpper(r.Name) || r.Description != "about "+r.Name || r.MIMEType == "" {
				t.Errorf("resource %+v", r)
			}
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	want := []string{"a.txt", "docs/b.md", "docs/c.txt", "img/d.bin", "src/e.go"}
	if slices.Sort(names); !slices.Equal(names, want) || pages != 3 {
		t.Errorf("listed %v in %d pages, want %v in 3 (page size 2; the secret file excluded)", names, pages, want)
	}

	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ResourceURI("docs/b.md")})
	if err != nil || rr.Contents[0].Text != "# B\n" || rr.Contents[0].MIMEType != "text/markdown" {
		t.Errorf("read text: %+v %v", rr, err)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ResourceURI("img/d.bin")})
	if err != nil || string(rr.Contents[0].Blob) != files["img/d.bin"] {
		t.Errorf("read blob: %+v %v", rr, err)
	}
	for uri, code := range map[string]string{
		ResourceURI("leak.txt"):             "FORBIDDEN",
		"dir2mcp:///../etc/passwd":          "PATH_OUTSIDE_ROOT",
		ResourceURI("missing.txt"):          "FILE_NOT_FOUND",
		ResourceURI(".dir2mcp/meta.sqlite"): "FORBIDDEN",
		"dir2mcp://host/a.txt":              "", // not a dir2mcp URI: the template does not match
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil || (code != "" && !strings.Contains(err.Error(), code)) {
			t.Errorf("read %s: %v, want %s", uri, err, code)
		}
	}

	complete := func(ref *mcp.CompleteReference, arg, v string) []string {
		t.Helper()
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: v}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Completion.Values
	}
	tpl := &mcp.CompleteReference{Type: "ref/resource", URI: fileTemplate.URITemplate}
	if got := complete(tpl, "path", "docs/"); !slices.Equal(got, []string{"docs/b.md", "docs/c.txt"}) {
		t.Errorf("complete path docs/: %v", got)
	}
	if got := complete(tpl, "path", "C.TXT"); !slices.Equal(got, []string{"docs/c.txt"}) {
		t.Errorf("complete by substring: %v", got)
	}
	prompt := &mcp.CompleteReference{Type: "ref/prompt", Name: "find-implementation"}
	if got := complete(prompt, "path_prefix", "d"); !slices.Equal(got, []string{"docs/"}) {
		t.Errorf("complete path_prefix: %v", got)
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "explain-file"}, "rel_path", "src"); !slices.Equal(got, []string{"src/e.go"}) {
		t.Errorf("complete rel_path: %v", got)
	}
	if got := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "unknown"}, "x", "a"); len(got) != 0 {
		t.Errorf("unknown ref: %v", got)
	}

	var prompts []*mcp.Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p)
	}
	if len(prompts) < 3 {
		t.Fatalf("%d prompts", len(prompts))
	}
	for _, p := range prompts {
		if p.Description == "" || len(p.Arguments) == 0 {
			t.Errorf("prompt %s lacks a description or arguments", p.Name)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "find-implementation", Arguments: map[string]string{}}); err == nil || !strings.Contains(err.Error(), "what") {
		t.Errorf("missing required argument: %v", err)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "find-implementation", Arguments: map[string]string{"what": "retry backoff", "path_prefix": "src/"}})
	if err != nil || !strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, `"retry backoff"`) ||
		!strings.Contains(gp.Messages[0].Content.(*mcp.TextContent).Text, "src/") {
		t.Errorf("prompt text: %+v %v", gp, err)
	}
}

// BenchmarkCatalogRefresh measures the periodic resource-list poll on an
// index the size of the Go standard library (12,000 files, no change).
func BenchmarkCatalogRefresh(b *testing.B) {
	files := map[string]string{}
	for i := range 12000 {
		files[filepath.Join("pkg", string(rune('a'+i%26)), "f"+strings.Repeat("x", i%7)+itoa(i)+".go")] = "package x\n"
	}
	s, _ := newIndexedServer(b, files, nil)
	ctx := context.Background()
	b.Run("full", func(b *testing.B) {
		for range b.N {
			if err := s.Refresh(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("unchanged-poll", func(b *testing.B) {
		for range b.N {
			if err := s.catalog.refresh(ctx, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// A document the index excluded for what its derived text held (a secret in
// a PDF's text layer or an archive member) is never served raw, even though
// its bytes pass the raw-content check.
func TestIndexExclusionsBlockRawReads(t *testing.T) {
	files := map[string]string{
		"creds.pdf":           "%PDF-1.4 compressed stream the raw scan cannot read",
		"bundle.zip":          "PK raw archive bytes",
		"bundle.zip!/key.txt": "placeholder",
		"fine.txt":            "nothing to hide",
	}
	s, cs := newIndexedServer(t, files, map[string]string{
		"creds.pdf":           "SECRET_EXCLUDED",
		"bundle.zip!/key.txt": "SECRET_EXCLUDED",
	})
	ctx := context.Background()
	for _, uri := range []string{"dir2mcp:///creds.pdf", "dir2mcp:///bundle.zip"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "FORBIDDEN") {
			t.Errorf("resources/read %s: %v, want FORBIDDEN", uri, err)
		}
	}
	for _, rel := range []string{"creds.pdf", "bundle.zip"} {
		if _, err := s.access.Open(ctx, rel); errcode.Of(err) != errcode.Forbidden {
			t.Errorf("target(%s) = %v, want FORBIDDEN", rel, err)
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "dir2mcp:///fine.txt"}); err != nil {
		t.Errorf("fine.txt: %v", err)
	}
}

func TestReadOnlyHidesWritingTools(t *testing.T) {
	s, _ := newIndexedServer(t, map[string]string{"a.txt": "x"}, nil)
	names := func() []string {
		var out []string
		for _, d := range s.tools() {
			out = append(out, d.tool.Name)
		}
		return out
	}
	if all := names(); !slices.Contains(all, "dir2mcp.annotate") || !slices.Contains(all, "dir2mcp.transcribe") {
		t.Fatalf("default tools %v", all)
	}
	s.ReadOnly = true
	got := names()
	for _, n := range []string{"dir2mcp.annotate", "dir2mcp.transcribe", "dir2mcp.transcribe_and_ask"} {
		if slices.Contains(got, n) {
			t.Errorf("--read-only still serves %s", n)
		}
	}
	if !slices.Contains(got, "dir2mcp.search") || !slices.Contains(got, "dir2mcp.ask_audio") {
		t.Errorf("--read-only dropped read tools: %v", got)
	}
}

// Listen before loading: a client is initialized and lists the tools
// while the resource list is still being read from the index;
// resources/list waits for it rather than answering an empty list.
func TestServesBeforeResourceListIsLoaded(t *testing.T) {
	files := map[string]string{"a.txt": "alpha\n", "docs/b.md": "# B\n", "src/e.go": "package e\n"}
	s := indexedServer(t, files, nil)
	s.PageSize = 100
	hold := make(chan struct{})
	s.catalogHold = func() { <-hold }
	cs := connect(t, s) // initialize answered with the catalog held
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list while loading: %v, %d tools", err, len(tools.Tools))
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	res, err := cs.ListResources(short, nil)
	cancel()
	if err == nil {
		t.Fatalf("resources/list answered %d resources before the list was loaded", len(res.Resources))
	}
	close(hold)
	res, err = cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != len(files) {
		t.Fatalf("resources/list after loading: %v, %d resources, want %d", err, len(res.Resources), len(files))
	}
}

// The resource list is read when first needed or when the owner warms the
// server (after its first index run), not while the server starts: a
// restarting server answers initialize, tools/list and ping without it.
func TestResourceListLoadsWhenWarmedOrNeeded(t *testing.T) {
	files := map[string]string{"a.txt": "alpha\n", "docs/b.md": "# B\n"}
	s := indexedServer(t, files, nil)
	var loads atomic.Int32
	s.catalogHold = func() { loads.Add(1) }
	cs := connect(t, s)
	ctx := context.Background()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := loads.Load(); n != 0 {
		t.Fatalf("the resource list was loaded %d times before anything needed it", n)
	}
	s.Warm()
	if n := loads.Load(); n != 1 {
		t.Fatalf("Warm loaded the list %d times", n)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != len(files) || loads.Load() != 1 {
		t.Fatalf("resources/list after Warm: %v, %d resources, %d loads", err, len(res.Resources), loads.Load())
	}
}
