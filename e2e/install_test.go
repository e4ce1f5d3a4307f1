package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The install line README gives; `go install …@latest` without the tag
// builds SQLite without FTS5.
const installLine = "go install -tags sqlite_fts5 github.com/dir2mcp/dir2mcp/cmd/dir2mcp@latest"

// TestTaglessBuildRefusesInOneLine: every binary built without -tags
// sqlite_fts5 (a plain `go install …@latest`) refuses to start with one
// line naming the build command, and writes nothing into the directory.
func TestTaglessBuildRefusesInOneLine(t *testing.T) {
	out := t.TempDir()
	build := exec.Command("go", "build", "-o", out+string(filepath.Separator), "./cmd/...")
	build.Dir = ".."
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("tagless build: %v\n%s", err, b)
	}
	dir := copyCorpus(t, "corpus")
	for _, name := range []string{"dir2mcp", "dir2mcp-scan", "dir2mcp-extract", "dir2mcp-embed", "dir2mcp-serve"} {
		args := []string{"--dir", dir}
		if name == "dir2mcp" {
			args = []string{"index", "--dir", dir}
		}
		cmd := exec.Command(filepath.Join(out, name), args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, _ := cmd.Output()
		msg := stderr.String()
		if code := cmd.ProcessState.ExitCode(); code != 1 || len(stdout) != 0 || strings.Count(msg, "\n") != 1 ||
			!strings.HasPrefix(msg, "ERROR: BUILD_UNSUPPORTED: this binary was built without -tags sqlite_fts5") ||
			!strings.Contains(msg, "build with: "+installLine) || strings.Contains(msg, "STORE_CORRUPT") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming %q", name, code, stdout, msg, installLine)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".dir2mcp")); !os.IsNotExist(err) {
		t.Errorf("a refusing binary created the state dir: %v", err)
	}
}

// TestGoInstallLineWorks: README carries the tagged `go install` line, and
// that command (for the local module: no network) gives a binary that
// indexes and answers.
func TestGoInstallLineWorks(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\$? ?` + regexp.QuoteMeta(installLine) + `\s*$`).Match(readme) {
		t.Fatalf("README.md has no line %q", installLine)
	}
	gobin := t.TempDir()
	pkg := strings.TrimSuffix(strings.Fields(installLine)[4], "@latest")
	install := exec.Command("go", "install", "-tags", "sqlite_fts5", pkg)
	install.Dir = ".."
	install.Env = append(os.Environ(), "GOBIN="+gobin, "GOPROXY=off")
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, b)
	}
	exe := filepath.Join(gobin, "dir2mcp")
	dir := copyCorpus(t, "corpus")
	if b, err := exec.Command(exe, "index", "--dir", dir).CombinedOutput(); err != nil || !strings.Contains(string(b), "Indexing complete") {
		t.Fatalf("installed binary: index: %v\n%s", err, b)
	}
	if b, err := exec.Command(exe, "ask", "--dir", dir, "--search-only", "ledger").CombinedOutput(); err != nil || !strings.Contains(string(b), "ledger") {
		t.Errorf("installed binary: ask: %v\n%s", err, b)
	}
}
