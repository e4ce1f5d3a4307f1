package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestIgnoreHint: a root whose .gitignore ends with "/*" (as Debian's
// linux-source does) indexes nothing, and `dir2mcp index` says which rule
// did it (file:line: pattern) and how to override it, in one warn event;
// the ordinary corpus, and the same root with ingest.gitignore off, get no
// such warning.
func TestIgnoreHint(t *testing.T) {
	const hint = "almost nothing to index"
	index := func(dir string, env ...string) string {
		t.Helper()
		cmd := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive", "--json")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("index: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := index(copyCorpus(t, "corpus")); strings.Contains(out, hint) {
		t.Errorf("ordinary corpus warned:\n%s", out)
	}

	dir := copyCorpus(t, "corpus")
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n# everything else is generated\n/*\n")
	f.Close()
	b, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	line := len(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))

	out := index(dir)
	var warns []string
	for _, ln := range strings.Split(out, "\n") {
		if strings.Contains(ln, hint) {
			warns = append(warns, ln)
		}
	}
	want := []string{`"level":"warn"`, `"event":"notice"`, ".gitignore:" + strconv.Itoa(line) + ": /*", "0 files scanned", "ingest.gitignore: false", "DIR2MCP_INGEST_GITIGNORE=false"}
	if len(warns) != 1 {
		t.Fatalf("want one warning naming the rule, got %d:\n%s", len(warns), out)
	}
	for _, w := range want {
		if !strings.Contains(warns[0], w) {
			t.Errorf("warning lacks %q:\n%s", w, warns[0])
		}
	}
	if !strings.Contains(out, `"scanned":0`) {
		t.Errorf("the /* rule should leave nothing scanned:\n%s", out)
	}

	cmd := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive")
	human, _ := cmd.CombinedOutput()
	if !strings.Contains(string(human), "WARN: nothing or almost nothing to index: ") || !strings.Contains(string(human), ".gitignore:"+strconv.Itoa(line)+": /*") {
		t.Errorf("human output lacks the warning line:\n%s", human)
	}

	if out := index(dir, "DIR2MCP_INGEST_GITIGNORE=false"); strings.Contains(out, hint) || strings.Contains(out, `"scanned":0`) {
		t.Errorf("with ingest.gitignore false, files are scanned and no warning:\n%s", out)
	}
}
