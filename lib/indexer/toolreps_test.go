package indexer

import (
	"context"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
)

// A tool's representations for a file the index does not know yet create
// its row; storing the annotation again without its text drops the old
// annotation_text in the same write.
func TestStoreRepsCreatesTheRowAndDrops(t *testing.T) {
	f := newFixture(t, map[string]string{"notes.md": "# Notes\n"})
	ctx := context.Background()
	root, err := rootfs.Open(f.root)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("# Notes\n")
	meta := `{"model":"m","provider":"p"}`
	reps := AnnotationReps(f.cfg, meta, `{"topic":"design"}`, "topic: design", record.Lines(1, 1), true)
	if len(reps) != 2 || reps[1].Input.Type != record.RepAnnotationText || len(reps[1].Chunks) != 1 || reps[1].Chunks[0].Span != record.Lines(1, 1) {
		t.Fatalf("annotation reps: %+v", reps)
	}
	added, err := StoreReps(ctx, f.st, root, ToolDoc{RelPath: "notes.md", DocType: record.DocMarkdown}, data, reps)
	if err != nil || added != 1 {
		t.Fatalf("StoreReps: added %d, %v", added, err)
	}
	d, ok, err := f.st.Document(ctx, "notes.md")
	if err != nil || !ok || d.Status != record.StatusOK || d.SizeBytes != int64(len(data)) || d.ContentHash != cache.ContentHash(data) || d.MtimeUnix == 0 {
		t.Fatalf("row: %+v ok=%v err=%v", d, ok, err)
	}
	if c, _, ok, _ := f.st.RepContent(ctx, d.DocID, record.RepAnnotationText); !ok || !strings.Contains(c, "topic: design") {
		t.Fatalf("annotation_text %q", c)
	}
	reps = AnnotationReps(f.cfg, meta, `{"topic":"design"}`, "topic: design", record.Lines(1, 1), false)
	if _, err := StoreReps(ctx, f.st, root, ToolDoc{RelPath: "notes.md", DocType: record.DocMarkdown, Row: d, Known: true}, data, reps, record.RepAnnotationText); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := f.st.RepContent(ctx, d.DocID, record.RepAnnotationText); ok {
		t.Error("annotation_text survived a drop")
	}
	if _, _, ok, _ := f.st.RepContent(ctx, d.DocID, record.RepAnnotationJSON); !ok {
		t.Error("annotation_json lost")
	}
}
