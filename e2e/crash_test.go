package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// crashWords is the vocabulary of the generated corpus.
var crashWords = strings.Fields(`archive backup checksum cluster compaction deadline encoder fallback gateway
	heartbeat invoice journal keystore latency manifest migration namespace offset partition quota replica
	rollback scheduler shard snapshot telemetry throttle tombstone upstream vacuum watermark webhook`)

// crashCorpus writes n files of four kinds (plain text, markdown, Go code,
// HTML) in nested directories, with sentences drawn from crashWords by a
// fixed seed, so every call writes the same tree.
func crashCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(14, 14))
	sentence := func() string {
		w := make([]string, 8+r.IntN(10))
		for i := range w {
			w[i] = crashWords[r.IntN(len(crashWords))]
		}
		return strings.Join(w, " ") + "."
	}
	para := func(k int) string {
		s := make([]string, k)
		for i := range s {
			s[i] = sentence()
		}
		return strings.Join(s, " ")
	}
	for i := range n {
		sub := filepath.Join(fmt.Sprintf("area%02d", i%23), fmt.Sprintf("part%d", i%7))
		var name, body string
		switch i % 4 {
		case 0:
			name, body = fmt.Sprintf("notes%04d.txt", i), fmt.Sprintf("Notes %d\n\n%s\n\n%s\n\n%s\n\n%s\n", i, para(9), para(8), para(9), para(7))
		case 1:
			name, body = fmt.Sprintf("guide%04d.md", i), fmt.Sprintf("# Guide %d\n\n%s\n\n## Details\n\n%s\n\n- %s\n- %s\n", i, para(3), para(4), sentence(), sentence())
		case 2:
			w := crashWords[i%len(crashWords)]
			name, body = fmt.Sprintf("svc%04d.go", i), fmt.Sprintf("package area%02d\n\n// %s%d handles the %s path. %s\nfunc %s%d(n int) int {\n\t// %s\n\treturn n * %d\n}\n",
				i%23, strings.ToUpper(w[:1])+w[1:], i, w, sentence(), strings.ToUpper(w[:1])+w[1:], i, sentence(), i)
		default:
			name, body = fmt.Sprintf("page%04d.html", i), fmt.Sprintf("<!doctype html><html><head><title>Page %d</title></head><body><h1>Page %d</h1><p>%s</p><ul><li>%s</li><li>%s</li></ul><p>%s</p></body></html>\n",
				i, i, para(2), sentence(), sentence(), para(3))
		}
		writeFile(t, filepath.Join(dir, sub, name), body)
	}
	return dir
}

// synthCorpus writes n small Go files in 40 packages and a markdown note
// for every fifth (n + n/5 documents): cheap to write, slow enough to index
// that a run can be interrupted.
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

func status(t *testing.T, dir string, args ...string) statusJSON {
	t.Helper()
	out, err := exec.Command(bin("dir2mcp"), append([]string{"status", "--dir", dir, "--json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var s statusJSON
	json.Unmarshal(out, &s)
	return s
}

// integrity runs PRAGMA integrity_check on the index in stateDir. The
// database is opened read-write, as the next dir2mcp run opens it: after a
// kill, SQLite first rolls back or replays what the dead process left in
// its journal (a read-only open cannot, and fails).
func integrity(t *testing.T, stateDir string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(stateDir, "meta.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res []string
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		rows.Scan(&s)
		res = append(res, s)
	}
	return strings.Join(res, "; ")
}

// crashQueries are searched on every index; their top 5 must match.
var crashQueries = []string{"snapshot compaction", "webhook retry gateway", "Tombstone4 handles", "quota partition replica", "Guide 1234", "vacuum watermark latency"}

// topHits serves the index in stateDir and returns, per query, its top 5
// hits as rel_path:start-end.
func topHits(t *testing.T, dir, stateDir string) []string {
	t.Helper()
	p := start(t, "dir2mcp", nil, "serve", "--dir", dir, "--state-dir", stateDir, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
	defer p.stop()
	c := newMCP(t, p.connect())
	c.initialize()
	var out []string
	for _, q := range crashQueries {
		var top []string
		for _, h := range c.search(q, map[string]any{"k": 5}).Hits {
			top = append(top, fmt.Sprintf("%s:%d-%d", h.RelPath, h.Span.StartLine, h.Span.EndLine))
		}
		out = append(out, q+" → "+strings.Join(top, ", "))
	}
	return out
}

// crashRuns is how many kill -9 cases TestCrashConsistency runs:
// DIR2MCP_CRASH_RUNS (make bench sets 20), default 4.
func crashRuns(t *testing.T) int {
	if v := os.Getenv("DIR2MCP_CRASH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("DIR2MCP_CRASH_RUNS=%q", v)
		}
		return n
	}
	return 4
}

// TestCrashConsistency kills `dir2mcp index` and `dir2mcp up` with SIGKILL
// at random moments of a full index of a few-thousand-file tree, checks
// the store's integrity right after the kill, re-runs `index` to
// completion and compares the result with a clean index of the same tree:
// document, chunk and embedded counts, nothing pending, integrity_check
// ok, and the top 5 of fixed queries.
func TestCrashConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a 3,000-file tree several times")
	}
	runs := crashRuns(t)
	dir := crashCorpus(t, 3000)

	cleanState := t.TempDir()
	begin := time.Now()
	if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--state-dir", cleanState, "--non-interactive", "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("clean index: %v\n%s", err, out)
	}
	full := time.Since(begin)
	want := status(t, dir, "--state-dir", cleanState)
	if want.Documents < 3000 || want.Pending != 0 || want.Embedded != want.Chunks {
		t.Fatalf("clean index: %+v", want)
	}
	if ic := integrity(t, cleanState); ic != "ok" {
		t.Fatalf("clean index integrity_check: %s", ic)
	}
	wantTop := topHits(t, dir, cleanState)
	t.Logf("clean top 5:\n%s", strings.Join(wantTop, "\n"))

	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 1))
	t.Logf("clean index of %d documents, %d chunks in %s; %d kill -9 runs, seed %d", want.Documents, want.Chunks, full.Round(time.Millisecond), runs, seed)
	mismatches, interrupted := 0, 0
	for i := range runs {
		cmdName := []string{"index", "up"}[i%2]
		at := time.Duration(r.Int64N(int64(full)))
		stateDir := t.TempDir()
		args := []string{cmdName, "--dir", dir, "--state-dir", stateDir, "--json", "--non-interactive"}
		if cmdName == "up" {
			args = append(args, "--listen", "127.0.0.1:0")
		}
		cmd := exec.Command(bin("dir2mcp"), args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(at)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		problems := []string{}
		mid := statusJSON{}
		if _, err := os.Stat(filepath.Join(stateDir, "meta.sqlite")); err == nil {
			if ic := integrity(t, stateDir); ic != "ok" {
				problems = append(problems, "integrity_check after the kill: "+ic)
			}
			mid = status(t, dir, "--state-dir", stateDir)
		}
		if out, err := exec.Command(bin("dir2mcp"), "index", "--dir", dir, "--state-dir", stateDir, "--non-interactive", "--quiet").CombinedOutput(); err != nil {
			problems = append(problems, fmt.Sprintf("re-run: %v: %s", err, out))
		} else {
			if got := status(t, dir, "--state-dir", stateDir); got != want {
				problems = append(problems, fmt.Sprintf("counts %+v, clean %+v", got, want))
			}
			if ic := integrity(t, stateDir); ic != "ok" {
				problems = append(problems, "integrity_check after the re-run: "+ic)
			}
			if got := topHits(t, dir, stateDir); !slices.Equal(got, wantTop) {
				problems = append(problems, fmt.Sprintf("top 5:\n  got  %s\n  want %s", strings.Join(got, "\n       "), strings.Join(wantTop, "\n       ")))
			}
		}
		cut := mid != want
		if cut {
			interrupted++
		}
		t.Logf("run %d: %s killed at %s (then %d docs, %d chunks, %d embedded; interrupted: %v): %s", i+1, cmdName, at.Round(time.Millisecond), mid.Documents, mid.Chunks, mid.Embedded, cut, map[bool]string{true: "ok", false: "MISMATCH"}[len(problems) == 0])
		if len(problems) > 0 {
			mismatches++
			t.Errorf("run %d (%s killed at %s): %s", i+1, cmdName, at, strings.Join(problems, "; "))
		}
	}
	t.Logf("crash consistency: %d cases (%d killed before the index was complete), %d mismatches", runs, interrupted, mismatches)
}
