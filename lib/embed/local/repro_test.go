package local

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTableReproducible re-runs scripts/distill with the parameters recorded
// in the built-in table and checks the output is byte-identical. It takes
// about 7 minutes on 2 cores (the full model over the fit prose, then the
// fit with the pairs of scripts/distill/pairs).
func TestTableReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: re-running the distillation takes ~7 min (run without -short)")
	}
	requireNode(t)
	requireGoModules(t)
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

// requireGoModules skips t unless the sources the table's fit reads are in
// place: the Go modules of scripts/distill/gomodules.txt in the module
// cache, the npm packages of npmpackages.txt in scripts/distill/node_modules
// and the crates of crates.txt in scripts/distill/crates (all fetched once
// by `make -C scripts/distill deps`).
func requireGoModules(t *testing.T) {
	t.Helper()
	cmd := exec.Command("go", "run", "./scripts/distill/pairs", "-fetch=false", "-o", os.DevNull)
	cmd.Dir = filepath.Join("..", "..", "..")
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("skipping: the training sources of scripts/distill are not all in place "+
			"(run `make -C scripts/distill deps` once, with the registries reachable): %v\n%s", err, out)
	}
}
