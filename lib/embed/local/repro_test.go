package local

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestTableReproducible re-runs scripts/distill with the parameters recorded
// in the built-in table and checks the output is byte-identical. It takes
// about 3 minutes on 2 cores (most of it running the full model over the
// fit corpus).
func TestTableReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: re-running the distillation takes ~3 min (run without -short)")
	}
	requireNode(t)
	tab, _, err := DefaultTable()
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Args []string `json:"args"`
	}
	if err := json.Unmarshal(tab.Meta, &meta); err != nil || len(meta.Args) == 0 {
		t.Fatalf("table meta has no generator args (%v): %s", err, tab.Meta)
	}
	args := meta.Args
	out := filepath.Join(t.TempDir(), "table.bin")
	abs, err := filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	runNode(t, nil, "distill.js", append(args, "--out", abs)...)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, tableFile) {
		t.Fatalf("regenerated table (%d bytes) differs from lib/embed/local/table.bin (%d bytes) for flags %v", len(got), len(tableFile), args)
	}
}
