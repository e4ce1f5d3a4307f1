package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// A new state dir is private and git-ignored; a loose existing one is
// tightened and gets its .gitignore back; a user's own .gitignore is kept.
func TestEnsureMakesStateDirPrivate(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), "state")}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{d.Path, d.Join("locks"), d.Join("cache")} {
		if m := mode(t, p); m != 0o700 {
			t.Errorf("%s: %o", p, m)
		}
	}
	if b, err := os.ReadFile(d.Join(GitignoreFile)); err != nil || !strings.HasSuffix(string(b), "\n*\n") {
		t.Fatalf(".gitignore %q %v", b, err)
	}
	os.Chmod(d.Path, 0o755)
	os.Remove(d.Join(GitignoreFile))
	os.WriteFile(d.Join("meta.sqlite"), nil, 0o644)
	os.WriteFile(d.Join("meta.sqlite-wal"), nil, 0o644)
	os.WriteFile(d.Join(CorpusFile), nil, 0o644)
	os.WriteFile(d.Join("cache", "x.json"), nil, 0o644)
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	if mode(t, d.Path) != 0o700 || mode(t, d.Join("meta.sqlite")) != 0o600 || mode(t, d.Join("meta.sqlite-wal")) != 0o600 ||
		mode(t, d.Join(CorpusFile)) != 0o600 || mode(t, d.Join("cache", "x.json")) != 0o600 {
		t.Error("existing state dir not tightened")
	}
	if _, err := os.Stat(d.Join(GitignoreFile)); err != nil {
		t.Error(".gitignore not restored")
	}
	os.WriteFile(d.Join(GitignoreFile), []byte("mine\n"), 0o600)
	d.Ensure()
	if b, _ := os.ReadFile(d.Join(GitignoreFile)); string(b) != "mine\n" {
		t.Errorf("existing .gitignore replaced: %q", b)
	}
}

// A --state-dir that also holds other files (here: the root itself) keeps
// its mode and gets no .gitignore; only dir2mcp's own files are tightened.
func TestEnsureLeavesASharedDirectoryAlone(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("hi\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "meta.sqlite"), nil, 0o644)
	d := Dir{Path: dir}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Join(GitignoreFile)); !os.IsNotExist(err) {
		t.Error(".gitignore written into a shared directory")
	}
	if mode(t, dir) != 0o755 || mode(t, filepath.Join(dir, "README.md")) != 0o644 {
		t.Error("a user's directory or file was changed")
	}
	if mode(t, d.Join("meta.sqlite")) != 0o600 {
		t.Error("meta.sqlite not tightened")
	}
}

// The INDEX_LOCKED error names the holder's pid and subcommand.
func TestLockedErrorNamesHolder(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(d.Join("locks", IndexLock), []byte("4242 /usr/bin/dir2mcp reindex --dir /x\n"), 0o600)
	f, _ := os.Open(d.Join("locks", IndexLock))
	defer f.Close()
	if h := readHolder(f); h != (Holder{PID: 4242, Command: "dir2mcp reindex"}) || h.String() != "pid 4242 (dir2mcp reindex)" {
		t.Errorf("holder %+v %q", h, h.String())
	}
	l, err := d.TryLock(IndexLock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	_, err = d.TryLock(IndexLock)
	var held *LockedError
	if errcode.Of(err) != errcode.IndexLocked || !errors.As(err, &held) || held.Holder.PID != os.Getpid() || held.Lock != IndexLock {
		t.Fatalf("second lock: %v (%+v)", err, held)
	}
	if mode(t, d.Join("locks", IndexLock)) != 0o600 {
		t.Error("lock file not private")
	}
}
