package rootfs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestResolveRefusesEscapes(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "ok.txt"), []byte("fine"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link-out"))
	os.Symlink(outside, filepath.Join(root, "dir-out"))
	os.Symlink(filepath.Join(outside, "missing"), filepath.Join(root, "dangling-out"))
	os.Symlink("sub/ok.txt", filepath.Join(root, "link-in"))
	r, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../x", "sub/../../x", "/etc/passwd", "%2e%2e/x", "%2E%2E%2Fx", "..\\x",
		"link-out", "dir-out/secret.txt", "dangling-out", filepath.Join(outside, "secret.txt")} {
		_, err := r.Resolve(p)
		if errcode.Of(err) != errcode.PathOutsideRoot {
			t.Errorf("Resolve(%q) = %v, want PATH_OUTSIDE_ROOT", p, err)
		}
	}
	for _, p := range []string{"sub/ok.txt", "./sub/ok.txt", "sub//ok.txt", "link-in"} {
		b, _, err := r.ReadFile(p, 0)
		if err != nil || string(b) != "fine" {
			t.Errorf("ReadFile(%q) = %q, %v", p, b, err)
		}
	}
	if _, err := r.Resolve("nope.txt"); errcode.Of(err) != errcode.FileNotFound {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadFileTruncates(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a"), []byte("0123456789"), 0o644)
	r, _ := Open(root)
	b, trunc, err := r.ReadFile("a", 4)
	if err != nil || string(b) != "0123" || !trunc {
		t.Fatalf("got %q %v %v", b, trunc, err)
	}
}

func TestOpenRejectsNonDir(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Open(f); errcode.Of(err) != errcode.RootInaccessible {
		t.Fatalf("got %v", err)
	}
}
