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

// Names holding "%" or "\" are names (issue 14, 0g): a file is found by its
// name as written; another spelling (percent-decoded, "\" as "/") is tried
// only when no file has the name as written, and never leaves the root.
func TestOddNamesResolveAsWritten(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"dot%2ename.txt", "pct%41.md", `back\slash.txt`, "%2e%2e", "100%.txt", "sp ace.txt"} {
		os.WriteFile(filepath.Join(root, n), []byte(n), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "ok.txt"), []byte("ok"), 0o644)
	r, _ := Open(root)
	for _, n := range []string{"dot%2ename.txt", "pct%41.md", `back\slash.txt`, "%2e%2e", "100%.txt", "sp ace.txt"} {
		if b, _, err := r.ReadFile(n, 0); err != nil || string(b) != n {
			t.Errorf("ReadFile(%q) = %q, %v", n, b, err)
		}
	}
	for in, want := range map[string]string{`sub\ok.txt`: "sub/ok.txt", "sub%2fok.txt": "sub/ok.txt", "pct%2541.md": "pct%41.md", "pct%41.md": "pct%41.md", "nope%41": "nope%41"} {
		if got, err := r.Name(in); err != nil || got != want {
			t.Errorf("Name(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, p := range []string{"%2e%2e/x", `..\x`, "%2e%2e%2fetc%2fpasswd"} {
		if _, err := r.Resolve(p); errcode.Of(err) != errcode.PathOutsideRoot {
			t.Errorf("Resolve(%q) = %v, want PATH_OUTSIDE_ROOT", p, err)
		}
	}
}
