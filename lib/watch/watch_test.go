package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func expect(t *testing.T, ch <-chan struct{}, want bool, what string) {
	t.Helper()
	select {
	case <-ch:
		if !want {
			t.Fatalf("%s: unexpected change signal", what)
		}
	case <-time.After(1500 * time.Millisecond):
		if want {
			t.Fatalf("%s: no change signal", what)
		}
	}
}

func TestSignalsChangesOutsideSkippedDirs(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".state"), 0o755)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan struct{}, 1)
	go Run(ctx, root, Options{Debounce: 100 * time.Millisecond, Skip: func(rel string) bool { return rel == ".state" }}, ch)
	time.Sleep(200 * time.Millisecond) // let the watches settle

	os.WriteFile(filepath.Join(root, ".state", "meta.sqlite"), []byte("x"), 0o644)
	expect(t, ch, false, "write in a skipped dir")

	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("package a"), 0o644)
	expect(t, ch, true, "new file")

	// A burst of events gives one signal.
	for i := range 5 {
		os.WriteFile(filepath.Join(root, "src", "a.go"), []byte{byte(i)}, 0o644)
	}
	expect(t, ch, true, "burst")
	expect(t, ch, false, "after burst")

	// Directories created later are watched too.
	os.MkdirAll(filepath.Join(root, "new", "deep"), 0o755)
	expect(t, ch, true, "new directory")
	os.WriteFile(filepath.Join(root, "new", "deep", "b.md"), []byte("# b"), 0o644)
	expect(t, ch, true, "file in new directory")

	os.Remove(filepath.Join(root, "src", "a.go"))
	expect(t, ch, true, "delete")
}

// A Watcher watches the directories added to it (as the indexer's scan
// lists them), and directories created under them, not the others.
func TestWatcherWatchesAddedDirectories(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"src", "other"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	w, err := New(root, Options{Debounce: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := make(chan struct{}, 1)
	w.Add(root)
	w.Add(filepath.Join(root, "src"))
	go w.Run(ctx, ch)

	os.WriteFile(filepath.Join(root, "other", "x.txt"), []byte("x"), 0o644)
	expect(t, ch, false, "write in a directory not added")
	os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("package a"), 0o644)
	expect(t, ch, true, "write in an added directory")
	os.MkdirAll(filepath.Join(root, "src", "new", "deep"), 0o755)
	expect(t, ch, true, "new directory")
	os.WriteFile(filepath.Join(root, "src", "new", "deep", "b.md"), []byte("# b"), 0o644)
	expect(t, ch, true, "file in a new directory")
}
