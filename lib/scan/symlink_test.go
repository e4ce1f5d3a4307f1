//go:build unix

package scan

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// symlinkTree builds a root with links in, out, into ignored places and in
// a loop, and returns root.
func symlinkTree(t *testing.T) string {
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "outside the root"})
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"real/a.go":           "package real",
		"real/deep/b.md":      "# b",
		"notes.txt":           "notes",
		".git/config":         "[core]",
		".dir2mcp/state.json": "{}",
		".env":                "X=1",
	})
	symlink(t, "notes.txt", filepath.Join(root, "link-file.txt"))
	symlink(t, "real", filepath.Join(root, "link-dir"))
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "out-file.txt"))
	symlink(t, outside, filepath.Join(root, "out-dir"))
	symlink(t, "..", filepath.Join(root, "real", "loop-up"))           // to the root
	symlink(t, "../deep", filepath.Join(root, "real", "deep", "self")) // to its own directory
	symlink(t, ".git/config", filepath.Join(root, "git-config"))
	symlink(t, ".dir2mcp", filepath.Join(root, "state-link"))
	symlink(t, ".env", filepath.Join(root, "env-link"))
	symlink(t, "missing", filepath.Join(root, "dangling"))
	return root
}

func TestSymlinksNotFollowedByDefault(t *testing.T) {
	root := symlinkTree(t)
	r := walk(t, Options{Root: root})
	want := []string{".env", "notes.txt", "real/a.go", "real/deep/b.md"}
	if got := sortedPaths(r); !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	if len(r.warns) != 0 {
		t.Errorf("warnings %q; links are passed over silently by default", r.warns)
	}
	if r.stats.Ignored < 10 {
		t.Errorf("stats.Ignored = %d, want the links counted", r.stats.Ignored)
	}
}

func TestSymlinksFollowedInsideRootOnly(t *testing.T) {
	root := symlinkTree(t)
	r := walk(t, Options{Root: root, FollowSymlinks: true})
	want := []string{".env", "link-dir/a.go", "link-dir/deep/b.md", "link-file.txt", "notes.txt", "real/a.go", "real/deep/b.md"}
	if got := sortedPaths(r); !reflect.DeepEqual(got, want) {
		t.Errorf("records %v, want %v", got, want)
	}
	if a, b := r.by["link-file.txt"], r.by["notes.txt"]; a.ContentHash != b.ContentHash || a.Status != record.StatusOK {
		t.Errorf("link-file.txt %+v does not carry its target's content", a)
	}
	for _, w := range []string{
		"out-file.txt: symlink points outside the root",
		"out-dir: symlink points outside the root",
		"real/loop-up: symlink loop",
		"real/deep/self: symlink loop",
		"link-dir/loop-up: symlink loop",
		"git-config: symlink target .git is ignored",
		"state-link: symlink points into the state directory",
		"env-link: symlink target matches security.path_excludes pattern \"**/.env\"",
		"dangling: broken symlink",
	} {
		found := false
		for _, got := range r.warns {
			found = found || strings.HasPrefix(got, w)
		}
		if !found {
			t.Errorf("no warning %q in %q", w, r.warns)
		}
	}
}

func TestSymlinkDirectoryEnteredOnce(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"d/f.txt": "x"})
	// Each level links twice to the next: without the once-only rule this
	// would expand to 2^n copies.
	for i := 0; i < 12; i++ {
		dir := filepath.Join(root, "l", string(rune('a'+i)))
		os.MkdirAll(dir, 0o755)
		next := "../" + string(rune('a'+i+1))
		if i == 11 {
			next = "../../d"
		}
		symlink(t, next, filepath.Join(dir, "x"))
		symlink(t, next, filepath.Join(dir, "y"))
	}
	r := walk(t, Options{Root: root, FollowSymlinks: true})
	if len(r.docs) > 30 {
		t.Fatalf("%d records: symlinked directories were expanded repeatedly", len(r.docs))
	}
	if _, ok := r.by["d/f.txt"]; !ok {
		t.Error("the real file is missing")
	}
}

func TestSpecialFilesAreNotOpened(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "x"})
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := walk(t, Options{Root: root})
	if got := r.paths(); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Errorf("records %v", got)
	}
}

func TestUnreadableFileAndDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions are not enforced")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{"locked.txt": "x", "ok.txt": "y", "closed/inside.txt": "z"})
	first := walk(t, Options{Root: root})
	os.Chmod(filepath.Join(root, "locked.txt"), 0)
	os.Chmod(filepath.Join(root, "closed"), 0)
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "closed"), 0o755) })
	known := knownFrom(first.docs)
	delete(known, "locked.txt") // else size+mtime say unchanged and it is not opened
	r := walk(t, Options{Root: root, Known: known})
	d := r.by["locked.txt"]
	if d.Status != record.StatusError || d.Code != "EXTRACT_FAILED" || !strings.Contains(d.Reason, "permission denied") {
		t.Errorf("locked.txt: %q %q %q", d.Status, d.Code, d.Reason)
	}
	if r.by["ok.txt"].Status != record.StatusOK {
		t.Error("the walk did not continue past the unreadable file")
	}
	if _, ok := r.by["closed/inside.txt"]; ok {
		t.Error("a file in an unlistable directory got a record; it must be left as it is")
	}
	if r.stats.Errors != 1 || r.stats.Deleted != 0 || len(r.warns) != 1 {
		t.Errorf("stats %+v warnings %q", r.stats, r.warns)
	}
}

func TestIgnoredSymlinkIsQuiet(t *testing.T) {
	outside := t.TempDir()
	root := t.TempDir()
	writeTree(t, root, map[string]string{".gitignore": "vendor-link\n", "a.go": "package a"})
	symlink(t, outside, filepath.Join(root, "vendor-link"))
	symlink(t, outside, filepath.Join(root, "node_modules"))
	r := walk(t, Options{Root: root, FollowSymlinks: true, Gitignore: true})
	if len(r.warns) != 0 {
		t.Errorf("warnings for ignored links: %q", r.warns)
	}
	if got := r.paths(); !reflect.DeepEqual(got, []string{".gitignore", "a.go"}) {
		t.Errorf("records %v", got)
	}
}
