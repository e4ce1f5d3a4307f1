package state

import (
	"bytes"
	"os"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// The cursor key is created once, private, and the same for every process
// (goroutine here) that asks for it, even when they race to create it.
func TestCursorKeyIsPrivateStableAndShared(t *testing.T) {
	d := Dir{Path: t.TempDir() + "/state"}
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := d.EnsureCursorKey()
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if len(k) != 32 || !bytes.Equal(k, keys[0]) {
			t.Fatalf("keys differ: %x vs %x", k, keys[0])
		}
	}
	fi, err := os.Stat(d.Join(CursorKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cursor.key mode: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(d.Path)
	for _, e := range entries {
		if e.Name() != CursorKeyFile && e.Name() != GitignoreFile && !e.IsDir() {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	os.WriteFile(d.Join(CursorKeyFile), []byte("not hex\n"), 0o600)
	if _, err := d.EnsureCursorKey(); errcode.Of(err) != errcode.StoreCorrupt {
		t.Fatalf("corrupt key: %v", err)
	}
}
