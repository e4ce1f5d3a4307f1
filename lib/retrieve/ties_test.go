package retrieve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Two indexes of one tree whose chunks were indexed in different orders
// (so their chunk ids order the files differently) answer alike: the hits
// tied on every score, more of them than the keyword channel's depth, are
// cut and ordered by path, not by id.
func TestTiesDoNotDependOnIndexingOrder(t *testing.T) {
	root := t.TempDir()
	const n = 150
	write := func(i int, text string) {
		p := filepath.Join(root, "notes", fmt.Sprintf("f%03d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := "Quokka sightings are logged here.\n"
	for i := range n {
		write(i, same)
	}
	ctx := context.Background()
	h, _ := hashing.New(64)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	cfg := config.Default()
	index := func(dir state.Dir) {
		st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if err := (&indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs}).Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	a := state.Dir{Path: filepath.Join(t.TempDir(), "a")}
	b := state.Dir{Path: filepath.Join(t.TempDir(), "b")}
	for _, d := range []state.Dir{a, b} {
		if err := d.Ensure(); err != nil {
			t.Fatal(err)
		}
	}
	// b: the first half is indexed with other text first, then as it is
	// now, so its chunks take ids after the second half's.
	for i := range n / 2 {
		write(i, "Something else entirely.\n")
	}
	index(b)
	for i := range n / 2 {
		write(i, same)
	}
	index(b)
	index(a)
	hitPaths := func(dir state.Dir) []string {
		st, err := store.Open(ctx, dir.Path, store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		res, err := openEngine(t, dir, st, embs, cfg).Search(ctx, retrieve.Request{Query: "quokka sightings", K: 10})
		if err != nil {
			t.Fatal(err)
		}
		return paths(res)
	}
	got, want := hitPaths(b), hitPaths(a)
	if len(want) != 10 || !slices.Equal(got, want) {
		t.Fatalf("indexed in another order:\n %v\nin path order:\n %v", got, want)
	}
	if !slices.IsSorted(want) || want[0] != "notes/f000.txt" {
		t.Errorf("tied hits are not in path order: %v", want)
	}
}
