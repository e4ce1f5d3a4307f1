package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := Write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%q %v", b, fi.Mode())
	}
	// A failing fill leaves the old file and no temp files behind.
	err := WriteFunc(p, 0o600, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("error swallowed")
	}
	b, _ = os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(b) != "two" || len(entries) != 1 {
		t.Fatalf("after failed write: %q, %d entries", b, len(entries))
	}
}

// WriteVolatile replaces the file the same way, only without syncing.
func TestWriteVolatileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, v := range []string{"one", "two"} {
		if err := WriteVolatile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	entries, _ := os.ReadDir(dir)
	if string(b) != "two" || fi.Mode().Perm() != 0o600 || len(entries) != 1 {
		t.Fatalf("%q %v, %d entries", b, fi.Mode(), len(entries))
	}
}
