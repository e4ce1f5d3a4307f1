package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repro forces TestTableReproducible to re-run the distillation and, when
// the output is byte-identical, to record its inputs in table.verified
// (`make repro`).
var repro = flag.Bool("repro", false, "re-run the table distillation whatever table.verified says, and record its inputs there when it reproduces")

// verifiedFile records the sum of distillInputs at the last re-run of the
// distillation that reproduced table.bin byte for byte.
const verifiedFile = "table.verified"

// TestTableReproducible checks that scripts/distill, with the parameters
// recorded in the built-in table, makes table.bin byte for byte.
//
// Always: the fit's training pairs (the Go generator's whole output, from
// the pinned Go modules, npm packages and crates, ~20 s) must hash to the
// sum recorded in the table. Then, when the distillation's other inputs
// (distillInputs: its scripts, package-lock.json, the pinned lists, the
// node version, table.bin) are those of table.verified, they were
// reproduced already and the ~11-minute re-run is skipped; when they
// differ, or with -repro, the test re-runs the whole distillation (the full
// model over the fit prose, then the fit) and compares the bytes.
func TestTableReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: checking the table's training pairs takes ~20 s, re-running the distillation ~11 min (run without -short)")
	}
	node := requireNode(t)
	tab, _, err := DefaultTable()
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Args []string `json:"args"`
		Fit  struct {
			Pairs struct {
				SHA256 string `json:"sha256"`
				Go     string `json:"go"`
			} `json:"pairs"`
		} `json:"fit"`
	}
	if err := json.Unmarshal(tab.Meta, &meta); err != nil || len(meta.Args) == 0 {
		t.Fatalf("table meta has no generator args (%v): %s", err, tab.Meta)
	}
	window := pairsWindow(meta.Args)
	if got := trainingPairsSum(t, window); got != meta.Fit.Pairs.SHA256 {
		t.Fatalf("the fit's training pairs (go run ./scripts/distill/pairs -window %s) hash to %s, the table was fitted on %s (made with %s): "+
			"the table would not reproduce; a changed Go toolchain, pinned list or generator changes them", window, got, meta.Fit.Pairs.SHA256, meta.Fit.Pairs.Go)
	}
	inputs := distillInputs(t, node)
	if !*repro && inputs == readVerified(t) {
		t.Logf("the distillation's inputs are those of the last byte-for-byte re-run (%s): not re-run (make repro re-runs it)", verifiedFile)
		return
	}
	out := filepath.Join(t.TempDir(), "table.bin")
	abs, err := filepath.Abs(out)
	if err != nil {
		t.Fatal(err)
	}
	runNode(t, nil, "distill.js", append(meta.Args, "--out", abs)...)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, tableFile) {
		t.Fatalf("regenerated table (%d bytes) differs from lib/embed/local/table.bin (%d bytes) for flags %v", len(got), len(tableFile), meta.Args)
	}
	if !*repro {
		t.Logf("table.bin reproduces; `make repro` records its inputs in %s so that make test skips the re-run", verifiedFile)
		return
	}
	body := "# The sum of the table distillation's inputs (scripts/distill's sources and pinned\n" +
		"# lists, package-lock.json, the node version, table.bin) at its last re-run that made\n" +
		"# table.bin byte for byte. Written by `make repro`; TestTableReproducible re-runs the\n" +
		"# distillation whenever the inputs no longer match.\n" + inputs + "\n"
	if err := os.WriteFile(verifiedFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("table.bin reproduces; inputs recorded in %s", verifiedFile)
}

// pairsWindow returns the generator's -window for the distillation flags
// args, as scripts/distill/lib/corpus.js chooses it: the Go pairs' 80-line
// windows only when the contrastive loss uses them (--contrast-code window
// or both; the canonical flags name it only when --contrast is on).
func pairsWindow(args []string) string {
	if i := slices.Index(args, "--contrast-code"); i >= 0 && i+1 < len(args) && args[i+1] != "decl" {
		return "80"
	}
	return "0"
}

// trainingPairsSum returns the SHA-256 of the Go generator's output with
// -window window, as scripts/distill/lib/corpus.js reads it (the sum the
// table records). It skips t unless the sources that output is made from are in place: the Go
// modules of scripts/distill/gomodules.txt in the module cache, the npm
// packages of npmpackages.txt in scripts/distill/node_modules and the
// crates of crates.txt in scripts/distill/crates (all fetched once by
// `make -C scripts/distill deps`).
func trainingPairsSum(t *testing.T, window string) string {
	t.Helper()
	cmd := exec.Command("go", "run", "./scripts/distill/pairs", "-window", window, "-fetch=false")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("skipping: the training sources of scripts/distill are not all in place "+
			"(run `make -C scripts/distill deps` once, with the registries reachable): %v\n%s", err, stderr.String())
	}
	sum := sha256.Sum256(out)
	return hex.EncodeToString(sum[:])
}

// distillInputs returns one sum over what the table is made from, apart
// from the training pairs (which the table records on its own): every file
// of scripts/distill that the distillation reads or that pins what it reads
// (not node_modules/ and crates/, pinned by package-lock.json and
// crates.txt; not the docs, tests or held-out lists), the node version
// (its floating point is the fit's), and table.bin.
func distillInputs(t *testing.T, node string) string {
	t.Helper()
	v, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "node %s\x00", strings.TrimSpace(string(v)))
	fmt.Fprintf(h, "table.bin %d\x00", len(tableFile))
	h.Write(tableFile)
	var files []string
	err = filepath.WalkDir(distillDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(distillDir, p)
		switch {
		case d.IsDir() && (rel == "node_modules" || rel == "crates" || rel == "heldout"):
			return filepath.SkipDir
		case d.IsDir() || !d.Type().IsRegular():
			return nil
		case rel == "pairs.jsonl", strings.HasSuffix(rel, ".md"), strings.HasSuffix(rel, "_test.go"):
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(distillDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%s %d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readVerified returns the sum recorded in table.verified ("" when absent).
func readVerified(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(verifiedFile)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}
