package e2e

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func upArgs(dir string, extra ...string) []string {
	return append([]string{"up", "--dir", dir, "--json", "--non-interactive", "--listen", "127.0.0.1:0"}, extra...)
}

// TestUpSearchEditDelete is the acceptance path: `up` serves at once,
// search finds a known phrase with its line span, and an edit and a delete
// are reflected by the next search with only the edited file re-extracted.
func TestUpSearchEditDelete(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	writeFile(t, filepath.Join(dir, "ignored_by_git", "skip.txt"), "zebra crossing must not be indexed\n")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()

	c := newMCP(t, srv)
	c.initialize()
	var tools struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	json.Unmarshal(c.call("tools/list", map[string]any{}), &tools)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if len(tl.OutputSchema) == 0 {
			t.Errorf("%s has no outputSchema", tl.Name)
		}
	}
	for _, want := range []string{"dir2mcp.search", "dir2mcp.ask", "dir2mcp.open_file", "dir2mcp.list_files", "dir2mcp.stats"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s (got %v)", want, names)
		}
	}

	done := p.wait("index_complete", 60*time.Second)
	if n := done.Data["errors"].(float64); n != 0 {
		t.Errorf("index_complete errors=%v", n)
	}
	total := done.Data["scanned"].(float64)

	// The known phrase comes back with the right file and line span.
	res := c.search("quarterly ledger entries against the bank statement", nil)
	if len(res.Hits) == 0 || res.Hits[0].RelPath != "src/ledger/ledger.go" {
		t.Fatalf("top hit = %+v, want src/ledger/ledger.go", res.Hits)
	}
	h := res.Hits[0]
	if h.Span.Kind != "lines" || h.Span.StartLine > 20 || h.Span.EndLine < 20 {
		t.Errorf("span %+v should cover line 20 (the doc comment)", h.Span)
	}
	if !res.IndexingComplete {
		t.Error("indexing_complete=false after index_complete")
	}
	// A natural-language question reaches the code index too.
	res = c.search("how is the great circle distance between two coordinates computed?", nil)
	if len(res.Hits) == 0 || res.Hits[0].RelPath != "src/geo/distance.py" {
		t.Errorf("question top hit = %+v, want src/geo/distance.py", firstPath(res))
	}
	// Ignored, excluded and secret files are not indexed; script text is dropped from HTML.
	forbidden := []string{"ignored_by_git/skip.txt", "secrets/creds.txt", ".env", "build/output.txt"}
	for _, q := range []string{"zebra crossing", "AKIAIOSFODNN7EXAMPLE deploy credentials", "DATABASE_PASSWORD hunter2",
		"generated build artefact", "trackingScriptMarker"} {
		for _, hh := range c.search(q, nil).Hits {
			if slices.Contains(forbidden, hh.RelPath) || strings.Contains(hh.Snippet, "trackingScriptMarker") ||
				strings.Contains(hh.Snippet, "AKIAIOSFODNN7EXAMPLE") {
				t.Errorf("%q returned forbidden content: %s %q", q, hh.RelPath, hh.Snippet)
			}
		}
	}

	// Edit one file, delete another.
	writeFile(t, filepath.Join(dir, "notes", "todo.txt"), "Things to do this week\n- recalibrate the heliostat mirrors before the solstice\n")
	if err := os.Remove(filepath.Join(dir, "docs", "guide.md")); err != nil {
		t.Fatal(err)
	}
	done = p.wait("index_complete", 60*time.Second)
	if got := done.Data["indexed"].(float64); got != 1 {
		t.Errorf("second run indexed=%v, want 1 (only the edited file)", got)
	}
	if got := done.Data["deleted"].(float64); got != 1 {
		t.Errorf("second run deleted=%v, want 1", got)
	}
	if got, skipped := done.Data["unchanged"].(float64), done.Data["skipped"].(float64); got+skipped != total-2 || got == 0 {
		t.Errorf("second run unchanged=%v skipped=%v, want them to add up to %v (every other file untouched)", got, skipped, total-2)
	}
	if r := c.search("heliostat mirrors solstice", nil); len(r.Hits) == 0 || r.Hits[0].RelPath != "notes/todo.txt" {
		t.Errorf("edited text not found: %+v", firstPath(r))
	}
	for _, q := range []string{"spectrograph filters", "aurora borealis calibration procedure"} {
		for _, hh := range c.search(q, nil).Hits {
			if hh.RelPath == "notes/todo.txt" && strings.Contains(hh.Snippet, "spectrograph") || hh.RelPath == "docs/guide.md" {
				t.Errorf("%q still finds stale content in %s", q, hh.RelPath)
			}
		}
	}
	// The token never appears on stdout.
	if strings.Contains(p.lines.String(), srv.token) || strings.Contains(p.stderr.String(), srv.token) {
		t.Error("bearer token leaked into the output")
	}
}

func firstPath(r searchOut) string {
	if len(r.Hits) == 0 {
		return "(no hits)"
	}
	return r.Hits[0].RelPath
}

// checkPrivate fails unless the state dir is 0700 with every directory in
// it 0700 and every file 0600, and has the .gitignore of "*".
func checkPrivate(t *testing.T, stateDir string) {
	t.Helper()
	err := filepath.WalkDir(stateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o, want %o", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(stateDir, ".gitignore")); err != nil || !slices.Contains(strings.Split(string(b), "\n"), "*") {
		t.Errorf("state dir .gitignore: %q %v", b, err)
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=e2e", "-c", "user.email=e2e@invalid"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestStateDirIsPrivateAndNotCommitted: the state dir (index text, vectors,
// bearer token) is 0700 with 0600 files, an existing loose one is tightened,
// and real git never stages it.
func TestStateDirIsPrivateAndNotCommitted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := copyCorpus(t, "corpus")
	stateDir := filepath.Join(dir, ".dir2mcp")
	gitRun(t, dir, "init", "-q")
	idx := exec.Command(bin("dir2mcp"), "index", "--dir", ".", "--quiet", "--non-interactive")
	idx.Dir = dir
	if out, err := idx.CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	checkPrivate(t, stateDir)

	// up adds the token and connection.json: private too, and never staged.
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	p.connect()
	p.wait("index_complete", 60*time.Second)
	for _, f := range []string{"secret.token", "connection.json", "meta.sqlite", "corpus.json"} {
		if _, err := os.Stat(filepath.Join(stateDir, f)); err != nil {
			t.Errorf("%s missing: %v", f, err)
		}
	}
	checkPrivate(t, stateDir)
	gitRun(t, dir, "add", "-A")
	if st := gitRun(t, dir, "status", "--porcelain", "--ignored=no"); strings.Contains(st, ".dir2mcp") || !strings.Contains(st, "notes/") {
		t.Errorf("git status shows the state dir (or nothing at all):\n%s", st)
	}
	if ls := gitRun(t, dir, "ls-files"); strings.Contains(ls, ".dir2mcp/") {
		t.Errorf("git staged state files:\n%s", ls)
	}
	p.stop()

	// A state dir from an older version (loose modes, no .gitignore) is
	// tightened on the next run.
	os.Remove(filepath.Join(stateDir, ".gitignore"))
	os.Chmod(stateDir, 0o755)
	os.Chmod(filepath.Join(stateDir, "meta.sqlite"), 0o644)
	os.Chmod(filepath.Join(stateDir, "corpus.json"), 0o644)
	os.Chmod(filepath.Join(stateDir, "locks"), 0o755)
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--quiet", "--non-interactive").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	checkPrivate(t, stateDir)

	// A --state-dir of its own is private and ignored too.
	own := filepath.Join(dir, "state-here")
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--state-dir", own, "--quiet", "--non-interactive").CombinedOutput(); err != nil {
		t.Fatalf("index --state-dir: %v\n%s", err, out)
	}
	checkPrivate(t, own)
	gitRun(t, dir, "add", "-A")
	if ls := gitRun(t, dir, "ls-files"); strings.Contains(ls, "state-here/") || strings.Contains(ls, ".dir2mcp/") {
		t.Errorf("git staged state files:\n%s", ls)
	}
}

// TestInterruptedIndexIsReported: a stdio client that leaves mid-index
// ends the job; it is reported as interrupted (event, status, stats), never
// as complete, and the next run says it resumes it.
func TestInterruptedIndexIsReported(t *testing.T) {
	dir := synthCorpus(t, 3000)
	c := startStdio(t, "up", "--stdio", "--dir", dir, "--json", "--non-interactive")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.stderr.String(), `"event":"server_started"`) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	closeStdio(c)
	log := c.stderr.String()
	if strings.Contains(log, `"event":"index_complete"`) && !strings.Contains(log, `"event":"index_interrupted"`) {
		if s := status(t, dir); s.Pending == 0 && s.Documents == 3600 {
			t.Skip("indexing finished before the client left")
		}
		t.Fatalf("an interrupted job was reported as complete:\n%s", log)
	}
	if !strings.Contains(log, `"event":"index_interrupted"`) || !strings.Contains(log, "Indexing interrupted") {
		t.Fatalf("no index_interrupted event:\n%s", log)
	}

	var st struct {
		Indexing struct {
			JobID       string `json:"job_id"`
			Running     bool   `json:"running"`
			Interrupted bool   `json:"interrupted"`
		} `json:"indexing"`
	}
	out, err := exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(out, &st)
	if !st.Indexing.Interrupted || st.Indexing.Running || st.Indexing.JobID == "" {
		t.Errorf("status after the interruption: %s", out)
	}
	out, _ = exec.Command(bin("dir2mcp"), "status", "--dir", dir).Output()
	if !strings.Contains(string(out), "Indexing:  interrupted") {
		t.Errorf("human status does not say interrupted:\n%s", out)
	}

	// The stats tool of a read-only server shows it too.
	sp := start(t, "dir2mcp-serve", nil, "--dir", dir, "--json", "--listen", "127.0.0.1:0")
	mc := newMCP(t, sp.connect())
	mc.initialize()
	var stats struct {
		Indexing struct {
			Interrupted bool `json:"interrupted"`
		} `json:"indexing"`
	}
	r := mc.tool("dir2mcp.stats", map[string]any{})
	json.Unmarshal(r.StructuredContent, &stats)
	if !stats.Indexing.Interrupted {
		t.Errorf("stats does not show the interrupted job: %s", r.StructuredContent)
	}
	sp.stop()

	// The next run says it resumes the interrupted job, then completes.
	out, err = exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--json", "--non-interactive").Output()
	if err != nil {
		t.Fatalf("index: %v", err)
	}
	resumed := strings.Index(string(out), `"event":"index_resumed"`)
	if resumed < 0 || !strings.Contains(string(out), st.Indexing.JobID) || resumed > strings.Index(string(out), `"event":"index_complete"`) {
		t.Errorf("the next run does not report resuming %s before it completes:\n%s", st.Indexing.JobID, out)
	}
	out, _ = exec.Command(bin("dir2mcp"), "status", "--dir", dir, "--json").Output()
	json.Unmarshal(out, &st)
	if st.Indexing.Interrupted {
		t.Errorf("still interrupted after a complete run: %s", out)
	}
	if s := status(t, dir); s.Pending != 0 || s.Documents != 3600 {
		t.Errorf("after resuming: %+v", s)
	}
}

// TestIndexInterruptedBySignal: Ctrl-C on a running `dir2mcp index` ends it
// with the interrupted summary and exit 130, not an ERROR line.
func TestIndexInterruptedBySignal(t *testing.T) {
	dir := synthCorpus(t, 3000)
	cmd := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Signal once the job is under way (the index is loaded), not after a
	// fixed delay: 3,000 small files index in well under a second.
	lines := bufio.NewScanner(stdout)
	var printed strings.Builder
	for lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
		if strings.HasPrefix(lines.Text(), "Loaded index") {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(os.Interrupt)
	for lines.Scan() {
		printed.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	out := stderr.String()
	if strings.Contains(out+printed.String(), "Indexing complete") {
		t.Skip("indexing finished before the signal")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("exit: %v, want 130\n%s", err, out)
	}
	if !strings.Contains(out, "Indexing interrupted") || strings.Contains(out, "ERROR") {
		t.Errorf("stderr:\n%s", out)
	}
}
