//go:build unix

package rootfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Only regular files are read: a FIFO is refused without being opened (an
// open would block until a writer came), a directory is not a file.
func TestOpenFileRefusesSpecialFiles(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	os.Symlink("pipe", filepath.Join(root, "link-to-pipe"))
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("abc"), 0o644)
	r, _ := Open(root)
	for p, want := range map[string]errcode.Code{"pipe": errcode.DocTypeUnsupported, "link-to-pipe": errcode.DocTypeUnsupported, "dir": errcode.InvalidField} {
		if _, _, err := r.ReadFile(p, 0); errcode.Of(err) != want {
			t.Errorf("ReadFile(%s) = %v, want %s", p, err, want)
		}
		if _, _, err := r.OpenFile(p); errcode.Of(err) != want {
			t.Errorf("OpenFile(%s) = %v, want %s", p, err, want)
		}
	}
	f, fi, err := r.OpenFile("a.txt")
	if err != nil || fi.Size() != 3 {
		t.Fatalf("OpenFile(a.txt) = %v, %v", fi, err)
	}
	f.Close()
}

// A FIFO opened by path after any check (as if swapped in since) neither
// blocks nor is returned; a regular file is, through a symlink too.
func TestOpenRegularNeverBlocks(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("abc"), 0o644)
	os.Symlink("a.txt", filepath.Join(root, "link"))
	done := make(chan error, 1)
	go func() {
		f, _, err := OpenRegular(filepath.Join(root, "pipe"))
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	if err := <-done; errcode.Of(err) != errcode.DocTypeUnsupported {
		t.Errorf("OpenRegular(FIFO) = %v, want DOC_TYPE_UNSUPPORTED", err)
	}
	for _, p := range []string{"a.txt", "link"} {
		f, fi, err := OpenRegular(filepath.Join(root, p))
		if err != nil || fi.Size() != 3 {
			t.Fatalf("OpenRegular(%s) = %v, %v", p, fi, err)
		}
		f.Close()
	}
}
