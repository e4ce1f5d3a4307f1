package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// cliRun is one finished CLI run.
type cliRun struct {
	code           int
	stdout, stderr string
}

// runCLI runs bin/dir2mcp with args (env appended to the environment) and
// returns its exit code and output. With asUser set and the test running
// as root, the command runs as nobody, so file permissions apply.
func runCLI(t *testing.T, env []string, asUser bool, args ...string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin("dir2mcp"), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if asUser {
		runAsUser(cmd)
	}
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", args, err)
	}
	return cliRun{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// runAsUser makes cmd run as the unprivileged user of userDir's dirs
// (nobody) when the test runs as root.
func runAsUser(cmd *exec.Cmd) {
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
}

// userDir returns a temp dir that the unprivileged user of runCLI (nobody
// when the test runs as root) owns, with a file in it, and makes the test
// binaries reachable for that user.
func userDir(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "dir2mcp-exit-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil || d != nil {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.Chmod(base, 0o755)
		os.RemoveAll(base)
	})
	dir := filepath.Join(base, "root")
	writeFile(t, filepath.Join(dir, "notes.md"), "# Notes\nThe ledger balances every night.\n")
	if os.Geteuid() == 0 {
		for _, p := range []string{base, dir, filepath.Join(dir, "notes.md")} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		os.Chmod(base, 0o755)
		os.Chmod(binDir, 0o755)
	}
	return dir
}

// TestCLIExitCodes runs each way the CLI can fail and checks the exit code of
// the SPEC §2.4 table and that the message names the cause and the way out.
func TestCLIExitCodes(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()

	cases := []struct {
		name   string
		prep   func(t *testing.T, dir string) // chmod, write files
		env    []string
		args   []string // "DIR" is replaced by the case's root
		code   int
		want   []string // substrings of stderr (stdout for code 0)
		noWant string
	}{
		{name: "unknown command", args: []string{"bogus"}, code: 2,
			want: []string{`ERROR: unknown command "bogus"`, "dir2mcp --help"}, noWant: "COMMANDS:"},
		{name: "unknown flag", args: []string{"index", "--dir", "DIR", "--nope"}, code: 2,
			want: []string{"flag provided but not defined: -nope", "--help"}, noWant: "Incorrect Usage"},
		{name: "--version", args: []string{"--version"}, code: 0, want: []string{"dir2mcp ", "store schema "}},
		{name: "version", args: []string{"version"}, code: 0, want: []string{"dir2mcp ", "store schema "}},
		{name: "missing root", args: []string{"index", "--dir", "DIR/nope"}, code: 3,
			want: []string{"ROOT_INACCESSIBLE", "not accessible"}},
		{name: "root is a file", args: []string{"status", "--dir", "DIR/notes.md"}, code: 3,
			want: []string{"ROOT_INACCESSIBLE", "not a directory"}},
		{name: "unreadable root", prep: func(t *testing.T, dir string) { os.Chmod(dir, 0) },
			args: []string{"index", "--dir", "DIR"}, code: 3, want: []string{"ROOT_INACCESSIBLE", "not readable"}},
		{name: "unreadable root, status", prep: func(t *testing.T, dir string) { os.Chmod(dir, 0) },
			args: []string{"status", "--dir", "DIR"}, code: 3, want: []string{"ROOT_INACCESSIBLE", "not readable"}},
		{name: "read-only root", prep: func(t *testing.T, dir string) { os.Chmod(dir, 0o555) },
			args: []string{"index", "--dir", "DIR"}, code: 3,
			want: []string{"ROOT_INACCESSIBLE", "cannot create state directory", "--state-dir"}, noWant: "STORE_CORRUPT"},
		{name: "read-only root, up", prep: func(t *testing.T, dir string) { os.Chmod(dir, 0o555) },
			args: []string{"up", "--dir", "DIR", "--listen", "127.0.0.1:0"}, code: 3,
			want: []string{"ROOT_INACCESSIBLE", "--state-dir"}},
		{name: "read-only root, --state-dir elsewhere works", prep: func(t *testing.T, dir string) { os.Chmod(dir, 0o555) },
			args: []string{"index", "--dir", "DIR", "--state-dir", "DIR/../state"}, code: 0, want: []string{"Indexing complete"}},
		{name: "unwritable --state-dir", prep: func(t *testing.T, dir string) { os.Chmod(dir, 0o555) },
			args: []string{"index", "--dir", "DIR", "--state-dir", "DIR/state"}, code: 2,
			want: []string{"CONFIG_INVALID", "--state-dir"}},
		{name: "bad config", prep: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, ".dir2mcp.yaml"), "bogus_key: 1\n") },
			args: []string{"index", "--dir", "DIR"}, code: 2, want: []string{"CONFIG_INVALID", ".dir2mcp.yaml:1", "bogus_key"}},
		{name: "missing key, non-interactive", env: []string{"DIR2MCP_EMBED_PROVIDER=mistral", "MISTRAL_API_KEY="},
			args: []string{"index", "--dir", "DIR", "--non-interactive"}, code: 2, want: []string{"CONFIG_INVALID", "MISTRAL_API_KEY"}},
		{name: "port in use", args: []string{"up", "--dir", "DIR", "--listen", busy.Addr().String()}, code: 4,
			want: []string{"BIND_FAILED", busy.Addr().String()}},
		{name: "index locked by another writer", prep: func(t *testing.T, dir string) { holdIndexLock(t, dir, true) },
			args: []string{"index", "--dir", "DIR"}, code: 1, want: []string{"INDEX_LOCKED", "locks/index.lock", "pid "}},
		{name: "reindex --force while another writer works", prep: func(t *testing.T, dir string) { holdIndexLock(t, dir, true) },
			args: []string{"reindex", "--force", "--dir", "DIR"}, code: 1, want: []string{"INDEX_LOCKED"}, noWant: "Moved the old index"},
		{name: "no index yet", args: []string{"status", "--dir", "DIR"}, code: 1, want: []string{"INDEX_NOT_READY", "dir2mcp up"}},
		{name: "index file this user may not open", prep: func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".dir2mcp", "meta.sqlite")
			writeFile(t, p, "")
			os.Chmod(p, 0)
		}, args: []string{"index", "--dir", "DIR"}, code: 3,
			want: []string{"ROOT_INACCESSIBLE", "meta.sqlite", "permission denied", "--state-dir"}, noWant: "reindex --force"},
		{name: "damaged index", prep: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, ".dir2mcp", "meta.sqlite"), "garbage") },
			args: []string{"index", "--dir", "DIR"}, code: 5, want: []string{"STORE_CORRUPT", "reindex --force"}},
		{name: "damaged index, reindex --force", prep: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, ".dir2mcp", "meta.sqlite"), "garbage") },
			args: []string{"reindex", "--force", "--dir", "DIR"}, code: 0, want: []string{"Indexing complete: 1 files scanned, 1 indexed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := userDir(t)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			if c.prep != nil {
				c.prep(t, dir)
				if os.Geteuid() == 0 {
					filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
						os.Lchown(p, 65534, 65534)
						return nil
					})
				}
			}
			r := runCLI(t, append([]string{"DIR2MCP_EMBED_PROVIDER=local"}, c.env...), true, args...)
			out := r.stderr
			if c.code == 0 {
				out = r.stdout
			}
			if r.code != c.code {
				t.Errorf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", c.args, r.code, c.code, r.stdout, r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("%v: output lacks %q:\nstdout: %s\nstderr: %s", c.args, w, r.stdout, r.stderr)
				}
			}
			if c.noWant != "" && strings.Contains(r.stdout+r.stderr, c.noWant) {
				t.Errorf("%v: output has %q:\n%s%s", c.args, c.noWant, r.stdout, r.stderr)
			}
		})
	}
}

// TestReindexForceAfterVersionMismatch: an index from a newer build is
// refused with INDEX_VERSION_MISMATCH (exit 5) naming `reindex --force`;
// plain `reindex` cannot open it either, `reindex --force` moves it aside
// (inside the state dir, kept) and builds a working one.
func TestReindexForceAfterVersionMismatch(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	if r := runCLI(t, nil, false, "index", "--dir", dir); r.code != 0 {
		t.Fatalf("index: %d %s", r.code, r.stderr)
	}
	db, err := sql.Open("sqlite3", filepath.Join(dir, ".dir2mcp", "meta.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, args := range [][]string{{"index"}, {"status"}, {"reindex"}} {
		r := runCLI(t, nil, false, append(args, "--dir", dir)...)
		if r.code != 5 || !strings.Contains(r.stderr, "INDEX_VERSION_MISMATCH") || !strings.Contains(r.stderr, "dir2mcp reindex --force") {
			t.Errorf("%v: exit %d, want 5 with a hint naming `reindex --force`: %s", args, r.code, r.stderr)
		}
	}
	r := runCLI(t, nil, false, "reindex", "--force", "--dir", dir)
	if r.code != 0 || !strings.Contains(r.stderr, "Moved the old index to "+filepath.Join(dir, ".dir2mcp", "old-")) {
		t.Fatalf("reindex --force: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	old, _ := filepath.Glob(filepath.Join(dir, ".dir2mcp", "old-*", "meta.sqlite"))
	if len(old) != 1 {
		t.Errorf("old index not kept: %v", old)
	}
	if r := runCLI(t, nil, false, "ask", "--dir", dir, "--search-only", "ledger"); r.code != 0 || !strings.Contains(r.stdout, "ledger") {
		t.Errorf("the rebuilt index does not answer: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, false, "index", "--dir", dir); r.code != 0 || !strings.Contains(r.stdout, "0 indexed") {
		t.Errorf("index after reindex --force: %d %s %s", r.code, r.stdout, r.stderr)
	}
}
