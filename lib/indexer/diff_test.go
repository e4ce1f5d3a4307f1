package indexer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDiff(t *testing.T) {
	f := newFixture(t, map[string]string{"a.md": "# A\n", "b.go": "package b\n", "c.txt": "gamma\n", "img.bin": "\x00\x01\x02"})
	f.run(hasher(t, 32))
	diff := func() Drift {
		t.Helper()
		d, err := Diff(context.Background(), f.cfg, ScanInput{Root: f.root, Dir: f.dir, Store: f.st})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := diff(); d.Total() != 0 {
		t.Fatalf("right after indexing: %+v", d)
	}
	writeFile(t, filepath.Join(f.root, "new.md"), "# New\n")
	writeFile(t, filepath.Join(f.root, "b.go"), "package b // changed\n")
	os.Remove(filepath.Join(f.root, "c.txt"))
	// Touched with the same bytes: not drift (the content hash decides).
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(f.root, "a.md"), later, later)
	d := diff()
	if len(d.Added) != 1 || d.Added[0].RelPath != "new.md" || len(d.Modified) != 1 || d.Modified[0].RelPath != "b.go" ||
		len(d.Deleted) != 1 || d.Deleted[0].RelPath != "c.txt" {
		t.Errorf("drift = %+v", d)
	}
	f.run(hasher(t, 32))
	if d := diff(); d.Total() != 0 {
		t.Errorf("after re-indexing: %+v", d)
	}
}
