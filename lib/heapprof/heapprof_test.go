package heapprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// held keeps the test's allocation live across GCs.
var held [][]byte

// allocateLive allocates 64 MiB that stay live: the peak profile must
// name this function.
func allocateLive() {
	for range 64 {
		held = append(held, make([]byte, 1<<20))
	}
}

func TestPeakAndExitProfiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.pprof")
	t.Setenv(EnvVar, path)
	stop := Start()
	allocateLive()
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for !profileNames(t, path, "allocateLive") {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("%s does not show the 64 MiB live allocation after a GC", path)
		}
		time.Sleep(50 * time.Millisecond)
		runtime.GC()
	}
	held = nil
	stop()
	if !profileNames(t, path+".exit", "TestPeakAndExitProfiles") {
		t.Fatalf("%s.exit is missing or not a heap profile of this process", path)
	}
}

func TestOffWithoutEnv(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(EnvVar, "")
	Start()()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("profiling without %s wrote %v", EnvVar, ents)
	}
}

// profileNames reports whether the gzipped pprof profile at path names
// function fn (in its string table).
func profileNames(t *testing.T, path, fn string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a gzipped profile: %v", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(raw, []byte(fn))
}
