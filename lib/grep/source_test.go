package grep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// indexDir indexes files (and testdata/multimodal/digital.pdf) with the
// real indexer and returns a StoreSource over the result.
func indexDir(t *testing.T, files map[string]string, excludes ...string) *StoreSource {
	t.Helper()
	root := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pdf, err := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", "digital.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "digital.pdf"), pdf, 0o644)
	ctx := context.Background()
	cfg := config.Default()
	cfg.Embed.Provider = "hash"
	dir := state.Resolve(root, "")
	dir.Ensure()
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, _ := hashing.New(hashing.DefaultDim)
	job := &indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Events: events.NewJSON(io.Discard),
		Embedders: map[string]embed.Embedder{record.KindText: h, record.KindCode: h}}
	if err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	r, _ := rootfs.Open(root)
	ex, _ := exclude.New(append(cfg.Security.PathExcludes, excludes...), cfg.Security.SecretPatterns)
	return &StoreSource{Store: st, Config: cfg, Access: &corpus.Access{Root: r, StateDir: dir.Path, Exclude: ex, Store: st}}
}

// The index's text is the files' text: rebuilt from chunks where it can
// be (checked against the representation hash), read from the file where
// it cannot (a long line split into parts, HTML);
// every match cites the file line grep -n would print.
func TestStoreSourceMatchesFileLines(t *testing.T) {
	var code, long strings.Builder
	for i := range 600 {
		code.WriteString("func f" + strings.Repeat("x", i%9) + "() int { return 1 }\n")
		if i%50 == 0 {
			code.WriteString("\n// marker line\n")
		}
	}
	long.WriteString("first\n" + strings.Repeat("lorem ipsum dolor ", 2000) + "marker in a long line\nlast marker\n")
	files := map[string]string{
		"a/plain.go":   code.String(),
		"a/spaces.txt": "one\n   \nmarker after a whitespace-only line\n",
		"b/long.txt":   long.String(),
		"c/page.html":  "<html><head><title>T</title></head>\n<body>\n<p>intro</p>\n\n<p>the marker\nparagraph</p>\n</body></html>\n",
		"d/notes.md":   "# Notes\n\nNo match here.\n\n- marker item\n",
		"hidden/x.txt": "marker but excluded after indexing\n",
	}
	src := indexDir(t, files, "hidden/**")
	// Stored text is used where it can be rebuilt exactly: those files may
	// go; the others are read again (here: changed since indexing).
	root := src.Access.Root.Dir()
	os.Remove(filepath.Join(root, "a/plain.go"))
	os.Remove(filepath.Join(root, "d/notes.md"))
	files["b/long.txt"] += "marker added since\n"
	os.WriteFile(filepath.Join(root, "b/long.txt"), []byte(files["b/long.txt"]), 0o644)
	ix := NewIndex(src)
	m := mustCompile(t, Pattern{Expr: "marker", Literal: true})
	got, _, _ := collect(t, ix, m, 1000, 0, nil)
	want := map[string][]int{}
	for rel, body := range files {
		if strings.HasPrefix(rel, "hidden/") || strings.HasSuffix(rel, ".html") {
			continue
		}
		for i, ln := range strings.Split(body, "\n") {
			if strings.Contains(ln, "marker") {
				want[rel] = append(want[rel], i+1)
			}
		}
	}
	want["c/page.html"] = []int{5} // the source line the paragraph starts on
	gotLines := map[string][]int{}
	for _, h := range got {
		gotLines[h.path] = append(gotLines[h.path], h.loc.Line)
		if h.loc.Span.Kind != record.SpanLines || h.loc.Span.StartLine != h.loc.Line {
			t.Errorf("%s: span %+v", h.path, h.loc.Span)
		}
	}
	for rel, lines := range want {
		if fmt.Sprint(gotLines[rel]) != fmt.Sprint(lines) {
			t.Errorf("%s: lines %v, want %v", rel, gotLines[rel], lines)
		}
	}
	if _, ok := gotLines["hidden/x.txt"]; ok {
		t.Error("a document excluded since indexing was searched")
	}
	// The PDF is cited by page.
	var pdf []hit
	for _, h := range collectAll(t, ix, "(?i)page") {
		if h.path == "digital.pdf" {
			pdf = append(pdf, h)
		}
	}
	if len(pdf) == 0 || pdf[0].loc.Page < 1 || pdf[0].loc.Span.Kind != record.SpanPage {
		t.Errorf("PDF matches: %+v", pdf)
	}
}

func collectAll(t *testing.T, ix *Index, expr string) []hit {
	got, _, _ := collect(t, ix, mustCompile(t, Pattern{Expr: expr}), 10000, 0, nil)
	return got
}
