//go:build unix

package scan

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"syscall"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// restartTree is a root with what a no-op run meets: ignore rules (a
// .gitignore, ingest.ignore), path excludes, symlinks in and out, special
// files, known files since deleted, ignored or moved under an excluded
// directory, and names that do not decide their type.
func restartTree(t *testing.T) (root string, known map[string]Known) {
	t.Helper()
	root = symlinkTree(t)
	writeTree(t, root, map[string]string{
		".gitignore": "*.log\n!keep.log\nbuild-out/\n",
		"x.log":      "log", "keep.log": "kept",
		"build-out/o.txt":    "o",
		"docs/Makefile":      "all:\n\techo\n",
		"docs/README":        "readme",
		"docs/noext":         "plain words",
		"docs/script":        "#!/usr/bin/env python3\nprint(1)\n",
		"docs/blob":          "\x00\x01\x02\x03binary",
		"docs/private/p.txt": "p",
		"gone.txt":           "soon gone",
		"later/ignored.txt":  "soon ignored",
		"deep/a/b/c/d.md":    "# d",
	})
	if err := syscall.Mkfifo(filepath.Join(root, "docs", "fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	first := walk(t, Options{Root: root, Gitignore: true, FollowSymlinks: true})
	known = knownFrom(first.docs)
	for rel, d := range first.by {
		k := known[rel]
		k.DocType, k.Lang = d.DocType, d.Lang
		known[rel] = k
	}
	if err := os.Remove(filepath.Join(root, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	return root, known
}

// Loading the known states while the walk runs (LoadKnown) gives the
// records, warnings and counts of a walk handed them up front, in the same
// order, and the walk lists directories (OnDir) before they are loaded.
func TestLoadKnownWhileWalking(t *testing.T) {
	root, known := restartTree(t)
	for _, follow := range []bool{false, true} {
		base := Options{Root: root, Gitignore: true, FollowSymlinks: follow, Ignore: []string{"later/"},
			SizeCaps: func(string) int64 { return 1 << 20 }}
		opt := base
		opt.Known = known
		want := walk(t, opt)

		var mu sync.Mutex
		var dirs []string
		listed := make(chan struct{})
		opt = base
		opt.OnDir = func(abs string) {
			mu.Lock()
			dirs = append(dirs, abs)
			if filepath.Base(abs) == "c" {
				close(listed) // the deepest directory: the walk ran ahead
			}
			mu.Unlock()
		}
		opt.LoadKnown = func() (map[string]Known, error) {
			<-listed
			return known, nil
		}
		got := walk(t, opt)
		if !reflect.DeepEqual(got.docs, want.docs) || !reflect.DeepEqual(got.warns, want.warns) {
			t.Errorf("follow=%v: records or warnings differ\n got %v %v\nwant %v %v", follow, got.paths(), got.warns, want.paths(), want.warns)
		}
		if got.stats.Entries != want.stats.Entries || got.stats.Ignored != want.stats.Ignored || got.stats.Unchanged != want.stats.Unchanged ||
			got.stats.Deleted != want.stats.Deleted || !reflect.DeepEqual(got.stats.IgnoredBy, want.stats.IgnoredBy) {
			t.Errorf("follow=%v: stats %+v, want %+v", follow, got.stats, want.stats)
		}
		if d := got.by["gone.txt"]; d.Change != record.ChangeDeleted {
			t.Errorf("follow=%v: gone.txt %q", follow, d.Change)
		}
		for _, d := range []string{"", "docs", "deep/a/b/c", "real/deep"} {
			if !slices.Contains(dirs, filepath.Join(root, d)) {
				t.Errorf("follow=%v: OnDir not called for %q: %v", follow, d, dirs)
			}
		}
		for _, d := range []string{".git", "build-out", "later", ".dir2mcp"} {
			if slices.Contains(dirs, filepath.Join(root, d)) {
				t.Errorf("follow=%v: OnDir called for %s, which the walk does not enter", follow, d)
			}
		}
	}
}

// A LoadKnown error ends the walk with it.
func TestLoadKnownError(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.txt": "a", "b/c.txt": "c"})
	boom := errors.New("store unreadable")
	_, err := tryWalk(Options{Root: root, LoadKnown: func() (map[string]Known, error) { return nil, boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("Walk error %v, want %v", err, boom)
	}
}

// A file whose name does not decide its type is not opened again when its
// size and mtime are the stored ones: its stored type is taken (its bytes,
// changed behind the scanner's back, are not looked at), unless Rehash.
func TestUnchangedUndecidedFileIsNotOpened(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"notes": "plain words here", "tool": "#!/bin/sh\necho hi\n"})
	first := walk(t, Options{Root: root})
	if d := first.by["notes"]; d.DocType != record.DocText {
		t.Fatalf("notes: %s", d.DocType)
	}
	known := knownFrom(first.docs)
	for rel, d := range first.by {
		k := known[rel]
		k.DocType, k.Lang = d.DocType, d.Lang
		known[rel] = k
	}
	for _, name := range []string{"notes", "tool"} {
		p := filepath.Join(root, name)
		fi, _ := os.Stat(p)
		b := make([]byte, fi.Size())
		b[0] = 0 // binary now, same size
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, fi.ModTime(), fi.ModTime())
	}
	r := walk(t, Options{Root: root, Known: known})
	if r.stats.BytesRead != 0 || !reflect.DeepEqual(r.docs, first.docsAs(record.ChangeUnchanged)) {
		t.Errorf("unchanged files were read (%d bytes) or differ:\n got %+v\nwant %+v", r.stats.BytesRead, r.docs, first.docsAs(record.ChangeUnchanged))
	}
	r = walk(t, Options{Root: root, Known: known, Rehash: true})
	if d := r.by["notes"]; d.DocType != record.DocBinaryIgnored || d.Change != record.ChangeModified {
		t.Errorf("with Rehash: %s %s, want the content's type (binary) and modified", d.DocType, d.Change)
	}
}

// A file that could not be read last time (an error, no content hash: its
// stored type is a placeholder) is read and classified again even when its
// size and mtime are unchanged (permissions fixed with chmod keep mtime),
// not skipped with the placeholder type's size cap.
func TestUnreadFileIsClassifiedAgain(t *testing.T) {
	root := t.TempDir()
	big := make([]byte, 2<<10)
	big[0] = 0 // binary
	writeTree(t, root, map[string]string{"blob": string(big)})
	first := walk(t, Options{Root: root})
	known := knownFrom(first.docs)
	k := known["blob"]
	k.Status, k.Code, k.ContentHash, k.DocType, k.Lang = record.StatusError, "PERMISSION_DENIED", "", record.DocText, ""
	known["blob"] = k
	caps := func(dt string) int64 {
		if dt == record.DocText {
			return 1 << 10 // the placeholder type's cap is below the file's size
		}
		return 0
	}
	r := walk(t, Options{Root: root, Known: known, SizeCaps: caps})
	if d := r.by["blob"]; d.DocType != record.DocBinaryIgnored || d.Code == string(errcode.FileTooLarge) {
		t.Errorf("blob: %s %s %s, want it read again and found binary", d.DocType, d.Status, d.Code)
	}
}
