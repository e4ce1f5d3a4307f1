package local

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestTableReproducible re-runs scripts/distill with the parameters recorded
// in the built-in table and checks the output is byte-identical. It takes
// about half a minute on 2 cores.
func TestTableReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: re-running the distillation takes ~30 s (run without -short)")
	}
	requireNode(t)
	tab, _, err := DefaultTable()
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(tab.Meta, &meta); err != nil {
		t.Fatalf("table meta: %v", err)
	}
	args, err := distillArgs(meta.Params)
	if err != nil {
		t.Fatal(err)
	}
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

// distillArgs turns the table's recorded parameters back into distill.js
// flags.
func distillArgs(p map[string]any) ([]string, error) {
	flags := []struct{ key, flag string }{
		{"dims", "--dims"}, {"removePC", "--remove-pc"}, {"centre", "--centre"}, {"weight", "--weight"},
		{"sifA", "--sif-a"}, {"quant", "--quant"}, {"scale", "--scale"},
	}
	var args []string
	for _, f := range flags {
		v, ok := p[f.key]
		if !ok {
			return nil, fmt.Errorf("table meta lacks params.%s", f.key)
		}
		args = append(args, f.flag, fmt.Sprint(v))
	}
	if b, _ := p["norm"].(bool); b {
		args = append(args, "--norm")
	}
	return args, nil
}
