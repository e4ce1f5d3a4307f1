package e2e

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// Two writers on one state directory: a server keeps serving while another
// process holds the index and indexes once it is free; a second server
// shares the index but never takes over the first one's connection.json;
// a one-shot writer gets a typed INDEX_LOCKED error. The store passes
// PRAGMA integrity_check after every scenario.

// lockHeld reports whether some process holds the state dir's lock name
// (the test tries to take it without waiting).
func lockHeld(t *testing.T, dir, name string) bool {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ".dir2mcp", "locks", name), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

func waitLockHeld(t *testing.T, dir, name string, timeout time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if lockHeld(t, dir, name) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// integrityOK runs PRAGMA integrity_check on the state dir's store.
func integrityOK(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, ".dir2mcp", "meta.sqlite")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check: %q %v", res, err)
	}
}

// alive fails unless the process is still running.
func (p *proc) alive(what string) {
	p.t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		p.t.Fatalf("%s: process exited (%v); stderr:\n%s", what, err, p.stderr.String())
	default:
	}
}

// holdIndexLock starts a pipeline extract stage, a real writer that holds
// locks/index.lock until its stdin closes; asUser runs it as runCLI's user
// (the state files it creates are then that user's, as they are when one
// user runs two dir2mcp commands).
func holdIndexLock(t *testing.T, dir string, asUser bool) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	ext := exec.Command(bin("dir2mcp-extract"), "--dir", dir, "--non-interactive")
	if asUser {
		runAsUser(ext)
	}
	in, err := ext.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ext.Stdout, ext.Stderr = io.Discard, io.Discard
	if err := ext.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); ext.Process.Kill(); ext.Wait() })
	if !waitLockHeld(t, dir, "index.lock", 15*time.Second) {
		t.Fatal("dir2mcp-extract never took the index lock")
	}
	return ext, in
}

// TestUpWaitsWhileAnotherWriterHoldsTheIndex: a watched file changes while
// another writer holds the index lock. up keeps serving, says once who
// holds the lock, and indexes the change when the lock frees.
func TestUpWaitsWhileAnotherWriterHoldsTheIndex(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	c := newMCP(t, p.connect())
	c.initialize()
	p.wait("index_complete", 60*time.Second)

	ext, in := holdIndexLock(t, dir, false)
	writeFile(t, filepath.Join(dir, "notes", "periscope.md"), "# Periscope\n\nThe periscope calibration tolerances are two arc minutes.\n")
	ev := p.waitAny(30*time.Second, "index_locked", "index_complete")
	if ev.Event != "index_locked" {
		t.Fatalf("up indexed although dir2mcp-extract held the index lock: %v", ev.Data)
	}
	msg, _ := ev.Data["message"].(string)
	if pid, _ := ev.Data["pid"].(float64); int(pid) != ext.Process.Pid ||
		!strings.Contains(msg, fmt.Sprintf("index locked by pid %d (dir2mcp-extract)", ext.Process.Pid)) || !strings.Contains(msg, "will retry") {
		t.Errorf("index_locked event %v, want pid %d named", ev.Data, ext.Process.Pid)
	}
	// Still serving the existing index meanwhile.
	time.Sleep(1500 * time.Millisecond)
	p.alive("while another writer holds the lock")
	if r := c.search("quarterly ledger entries against the bank statement", nil); len(r.Hits) == 0 {
		t.Error("no search results while waiting for the lock")
	}
	in.Close()
	if err := ext.Wait(); err != nil {
		t.Fatalf("dir2mcp-extract: %v", err)
	}
	done := p.wait("index_complete", 30*time.Second)
	if n, _ := done.Data["indexed"].(float64); n < 1 {
		t.Errorf("after the lock freed indexed=%v, want the changed file", done.Data["indexed"])
	}
	if r := c.search("periscope calibration tolerances", nil); len(r.Hits) == 0 || r.Hits[0].RelPath != "notes/periscope.md" {
		t.Errorf("change made while locked not indexed: %+v", firstPath(r))
	}
	if strings.Count(p.lines.String(), `"event":"index_locked"`) != 1 {
		t.Errorf("index_locked reported %d times, want once", strings.Count(p.lines.String(), `"event":"index_locked"`))
	}
	p.stop()
	integrityOK(t, dir)
}

// TestUpStartedDuringReindex: up started while a cron-style reindex holds
// the index prints its URL, serves, reports the lock, and indexes after the
// reindex ends, never exiting. An `index` run meanwhile gets INDEX_LOCKED.
func TestUpStartedDuringReindex(t *testing.T) {
	dir := synthCorpus(t, 3000)
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--quiet", "--non-interactive").CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	re := start(t, "dir2mcp", nil, "reindex", "--dir", dir, "--json", "--non-interactive")
	if !waitLockHeld(t, dir, "index.lock", 30*time.Second) {
		t.Fatal("reindex never took the index lock")
	}
	// A one-shot writer is refused with a typed error naming the holder.
	out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive").CombinedOutput()
	var xe *exec.ExitError
	if lockHeld(t, dir, "index.lock") && (!errors.As(err, &xe) || xe.ExitCode() != 1 || !strings.Contains(string(out), "INDEX_LOCKED") ||
		!strings.Contains(string(out), fmt.Sprintf("pid %d (dir2mcp reindex)", re.cmd.Process.Pid))) {
		t.Errorf("index during reindex: %v\n%s", err, out)
	}

	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()
	ev := p.waitAny(60*time.Second, "index_locked", "index_complete")
	if ev.Event == "index_complete" {
		if ev.Data["error"] != nil {
			t.Fatalf("up's indexing failed instead of waiting for the reindex: %v", ev.Data["error"])
		}
		t.Skip("the reindex finished before up tried to index")
	}
	if msg, _ := ev.Data["message"].(string); !strings.Contains(msg, fmt.Sprintf("pid %d (dir2mcp reindex)", re.cmd.Process.Pid)) {
		t.Errorf("index_locked %v does not name the reindex (pid %d)", ev.Data, re.cmd.Process.Pid)
	}
	c := newMCP(t, srv)
	c.initialize()
	var stats struct {
		Indexing struct{ Running bool } `json:"indexing"`
	}
	json.Unmarshal(c.tool("dir2mcp.stats", map[string]any{}).StructuredContent, &stats)
	if lockHeld(t, dir, "index.lock") && !stats.Indexing.Running {
		t.Error("stats says indexing is idle while the reindex rebuilds the index")
	}
	re.wait("index_complete", 120*time.Second)
	if err := <-re.done; err != nil {
		t.Fatalf("reindex: %v", err)
	}
	p.wait("index_complete", 60*time.Second)
	p.alive("after the reindex")
	if r := c.search("maintenance window starts after the nightly backup", nil); len(r.Hits) == 0 {
		t.Error("no hits after the reindex")
	}
	p.stop()
	integrityOK(t, dir)
	if s := status(t, dir); s.Pending != 0 || s.Embedded != s.Chunks || s.Documents != 3600 {
		t.Errorf("after reindex + up: %+v", s)
	}
}

// TestTwoUpsOnOneStateDir: a second up serves and shares the index; the
// first keeps connection.json (the second neither rewrites nor removes it);
// edits are indexed by one and seen by both.
func TestTwoUpsOnOneStateDir(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	a := start(t, "dir2mcp", nil, upArgs(dir)...)
	sa := a.connect()
	a.wait("index_complete", 60*time.Second)
	connFile := filepath.Join(dir, ".dir2mcp", "connection.json")
	readConn := func() (url string, pid int) {
		var c struct {
			URL string `json:"url"`
			PID int    `json:"pid"`
		}
		b, err := os.ReadFile(connFile)
		if err != nil {
			return "", 0
		}
		json.Unmarshal(b, &c)
		return c.URL, c.PID
	}
	if u, pid := readConn(); u != sa.url || pid != a.cmd.Process.Pid {
		t.Fatalf("connection.json %s pid %d, want the first up's %s pid %d", u, pid, sa.url, a.cmd.Process.Pid)
	}

	b := start(t, "dir2mcp", nil, upArgs(dir)...)
	sb := b.connect()
	if sb.url == sa.url {
		t.Fatal("second up reports the first one's URL")
	}
	b.waitAny(60*time.Second, "index_complete")
	if u, pid := readConn(); u != sa.url || pid != a.cmd.Process.Pid {
		t.Errorf("second up rewrote connection.json: %s pid %d", u, pid)
	}
	if !strings.Contains(b.lines.String(), fmt.Sprintf("another server, pid %d (dir2mcp up), already serves", a.cmd.Process.Pid)) {
		t.Errorf("second up does not say who owns connection.json:\n%s", b.lines.String())
	}

	// An edit is indexed (by whichever server takes the lock first; the
	// other waits and finds nothing left to do) and both serve it.
	writeFile(t, filepath.Join(dir, "notes", "periscope.md"), "# Periscope\n\nThe periscope calibration tolerances are two arc minutes.\n")
	a.wait("index_complete", 30*time.Second)
	b.wait("index_complete", 30*time.Second)
	for _, s := range []server{sa, sb} {
		c := newMCP(t, s)
		c.initialize()
		if r := c.search("periscope calibration tolerances", nil); len(r.Hits) == 0 || r.Hits[0].RelPath != "notes/periscope.md" {
			t.Errorf("%s: edit not served: %+v", s.url, firstPath(r))
		}
	}

	b.stop()
	if code := b.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("second up exit code %d\n%s", code, b.stderr.String())
	}
	if u, pid := readConn(); u != sa.url || pid != a.cmd.Process.Pid {
		t.Errorf("second up's exit removed or changed connection.json: %q pid %d", u, pid)
	}
	a.alive("after the second up stopped")

	// When the owner stops, a remaining server takes connection.json over;
	// the last one to stop removes it.
	c3 := start(t, "dir2mcp", nil, upArgs(dir)...)
	s3 := c3.connect()
	c3.wait("index_complete", 30*time.Second)
	a.stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if u, pid := readConn(); u == s3.url && pid == c3.cmd.Process.Pid {
			break
		}
		if time.Now().After(deadline) {
			u, pid := readConn()
			t.Fatalf("connection.json not taken over by the remaining server: %q pid %d, want %s pid %d", u, pid, s3.url, c3.cmd.Process.Pid)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c3.stop()
	if _, err := os.Stat(connFile); !os.IsNotExist(err) {
		t.Errorf("the last up left connection.json behind: %v", err)
	}
	integrityOK(t, dir)
}

// TestWritersDuringUp: `index` while up indexes is refused with
// INDEX_LOCKED naming up; a cron-style `reindex` while up is idle runs
// (the two share the index), and a file changed during that reindex is
// indexed by up once the reindex ends. up never exits.
func TestWritersDuringUp(t *testing.T) {
	dir := synthCorpus(t, 3000)
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	c := newMCP(t, p.connect())
	c.initialize()
	if waitLockHeld(t, dir, "index.lock", 20*time.Second) {
		out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--non-interactive").CombinedOutput()
		t.Logf("index during up's job: %v %s", err, out)
		var xe *exec.ExitError
		if lockHeld(t, dir, "index.lock") && (!errors.As(err, &xe) || xe.ExitCode() != 1 ||
			!strings.Contains(string(out), fmt.Sprintf("INDEX_LOCKED: another dir2mcp writer, pid %d (dir2mcp up), holds", p.cmd.Process.Pid)) ||
			!strings.Contains(string(out), "indexes changes itself")) {
			t.Errorf("index during up's job: %v\n%s", err, out)
		}
	}
	p.wait("index_complete", 120*time.Second)

	re := start(t, "dir2mcp", nil, "reindex", "--dir", dir, "--json", "--non-interactive")
	if !waitLockHeld(t, dir, "index.lock", 30*time.Second) {
		t.Fatal("reindex never took the index lock")
	}
	writeFile(t, filepath.Join(dir, "notes", "periscope.md"), "# Periscope\n\nThe periscope calibration tolerances are two arc minutes.\n")
	ev := p.waitAny(60*time.Second, "index_locked", "index_complete")
	if ev.Event == "index_complete" && ev.Data["error"] != nil {
		t.Fatalf("up's indexing failed instead of waiting for the reindex: %v", ev.Data["error"])
	}
	re.wait("index_complete", 120*time.Second)
	if err := <-re.done; err != nil {
		t.Fatalf("reindex during up: %v\n%s", err, re.stderr.String())
	}
	t.Logf("up on a change during the reindex: %s", ev.Event)
	if ev.Event == "index_locked" {
		p.wait("index_complete", 60*time.Second)
	}
	p.alive("after the reindex")
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := c.search("periscope calibration tolerances", nil)
		if len(r.Hits) > 0 && r.Hits[0].RelPath == "notes/periscope.md" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("file changed during the reindex never indexed: %+v", firstPath(r))
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.stop()
	integrityOK(t, dir)
	if s := status(t, dir); s.Pending != 0 || s.Embedded != s.Chunks || s.Documents != 3601 {
		t.Errorf("after reindex during up: %+v", s)
	}
}
