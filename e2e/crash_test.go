package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// synthCorpus writes n small Go and markdown files.
func synthCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("pkg%02d", i%40), fmt.Sprintf("file%04d.go", i)),
			fmt.Sprintf("package pkg%02d\n\n// Compute%d returns the checksum of record %d in the archive.\nfunc Compute%d(b []byte) int {\n\treturn len(b) * %d\n}\n", i%40, i, i, i, i))
		if i%5 == 0 {
			writeFile(t, filepath.Join(dir, "docs", fmt.Sprintf("note%04d.md", i)),
				fmt.Sprintf("# Note %d\n\nThe maintenance window %d starts after the nightly backup completes.\n", i, i))
		}
	}
	return dir
}

type statusJSON struct {
	Documents int64 `json:"documents"`
	Chunks    int64 `json:"chunks"`
	Embedded  int64 `json:"embedded"`
	Pending   int64 `json:"pending"`
}

func status(t *testing.T, dir string) statusJSON {
	t.Helper()
	out, err := exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--json").Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var s statusJSON
	json.Unmarshal(out, &s)
	return s
}

// TestCrashMidIndexResumes kills an indexer with SIGKILL part-way and checks
// that the next run completes to exactly the state of an uninterrupted index.
func TestCrashMidIndexResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 3,000-file corpus")
	}
	dir := synthCorpus(t, 3000)
	cmd := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--json", "--non-interactive")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill once the store has content but before the run can finish.
	buf := make([]byte, 4096)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n, _ := out.Read(buf)
		if strings.Contains(string(buf[:n]), "index_loaded") {
			break
		}
	}
	time.Sleep(400 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	mid := status(t, dir)
	if mid.Documents >= 3600 && mid.Pending == 0 {
		t.Skip("the indexer finished before it could be killed; nothing to resume")
	}
	if err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive", "--quiet").Run(); err != nil {
		t.Fatalf("resume: %v", err)
	}
	got := status(t, dir)
	clean := synthCorpus(t, 3000)
	if err := exec.Command(bin("dir2mcp"), "index", "--dir", clean, "--non-interactive", "--quiet").Run(); err != nil {
		t.Fatal(err)
	}
	want := status(t, clean)
	if got != want || got.Pending != 0 || got.Embedded != got.Chunks {
		t.Fatalf("after crash+resume %+v (killed at %+v), clean index %+v", got, mid, want)
	}
}
