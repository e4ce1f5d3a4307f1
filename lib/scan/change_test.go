package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func TestChangeDetection(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"same.go":     "package same",
		"edit.go":     "package edit",
		"gone.go":     "package gone",
		"touched.md":  "# same content, new mtime",
		"noext":       "no extension: classified from content",
		"aws.txt":     "AKIAIOSFODNN7EXAMPLE",
		"blob.txt":    "\x00\x00binary",
		"sub/deep.go": "package deep",
	})
	first := walk(t, Options{Root: root})
	if first.stats.New != 8 {
		t.Fatalf("first scan stats %+v, want 8 new", first.stats)
	}
	known := knownFrom(first.docs)

	// No-op rescan: everything unchanged, and files named by type are not
	// read at all (only the extension-less file has its head sniffed).
	again := walk(t, Options{Root: root, Known: known})
	for _, d := range again.docs {
		if d.Change != record.ChangeUnchanged {
			t.Errorf("no-op rescan: %s is %q", d.RelPath, d.Change)
		}
		want := first.by[d.RelPath]
		want.Change = record.ChangeUnchanged
		if d != want {
			t.Errorf("no-op rescan: %s record differs\n got %+v\nwant %+v", d.RelPath, d, want)
		}
	}
	if again.stats.Unchanged != 8 || again.stats.BytesRead != int64(len("no extension: classified from content")) {
		t.Errorf("no-op rescan stats %+v: want 8 unchanged and only the extension-less file's head read", again.stats)
	}

	writeTree(t, root, map[string]string{"edit.go": "package edit // more", "new.go": "package new"})
	os.Remove(filepath.Join(root, "gone.go"))
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "touched.md"), later, later)
	r := walk(t, Options{Root: root, Known: known})
	want := map[string]string{
		"same.go": record.ChangeUnchanged, "edit.go": record.ChangeModified, "new.go": record.ChangeNew,
		"gone.go": record.ChangeDeleted, "touched.md": record.ChangeUnchanged, "aws.txt": record.ChangeUnchanged,
		"blob.txt": record.ChangeUnchanged, "sub/deep.go": record.ChangeUnchanged, "noext": record.ChangeUnchanged,
	}
	for rel, c := range want {
		if got := r.by[rel].Change; got != c {
			t.Errorf("%s: change %q, want %q", rel, got, c)
		}
	}
	if d := r.by["touched.md"]; d.MtimeNs != later.UnixNano() || d.ContentHash != first.by["touched.md"].ContentHash {
		t.Errorf("touched.md: unchanged record must carry the new mtime and the same hash: %+v", d)
	}
	if d := r.by["gone.go"]; d.ContentHash != "" || d.Reason != "no longer exists" || d.SizeBytes != int64(len("package gone")) {
		t.Errorf("gone.go: %+v", d)
	}
	if last := r.docs[len(r.docs)-1]; last.RelPath != "gone.go" {
		t.Errorf("deleted records must come after the walk; last is %s", last.RelPath)
	}
	if aws := r.by["aws.txt"]; aws.Code != string(errcode.SecretExcluded) || aws.Status != record.StatusSkipped {
		t.Errorf("aws.txt kept verdict: %+v", aws)
	}
	if r.stats.Unchanged != 6 || r.stats.Modified != 1 || r.stats.New != 1 || r.stats.Deleted != 1 || r.stats.Scanned != 8 {
		t.Errorf("stats %+v", r.stats)
	}
}

// TestShortcutDoesNotRead proves the size+mtime shortcut: content changed
// behind the scanner's back, with size and mtime restored, is reported
// unchanged with the old hash, unless Rehash is set.
func TestShortcutDoesNotRead(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "a.go")
	writeTree(t, root, map[string]string{"a.go": "package aaaa"})
	fi, _ := os.Stat(p)
	first := walk(t, Options{Root: root})
	known := knownFrom(first.docs)

	if err := os.WriteFile(p, []byte("package bbbb"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, fi.ModTime(), fi.ModTime())

	r := walk(t, Options{Root: root, Known: known})
	if d := r.by["a.go"]; d.Change != record.ChangeUnchanged || d.ContentHash != first.by["a.go"].ContentHash || r.stats.BytesRead != 0 {
		t.Errorf("without Rehash: %+v, read %d bytes; want unchanged with the stored hash, nothing read", d, r.stats.BytesRead)
	}
	r = walk(t, Options{Root: root, Known: known, Rehash: true})
	if d := r.by["a.go"]; d.Change != record.ChangeModified || d.ContentHash == first.by["a.go"].ContentHash {
		t.Errorf("with Rehash: %+v; want modified with a new hash", d)
	}
	// Same content, rehashed: unchanged.
	os.WriteFile(p, []byte("package aaaa"), 0o644)
	if d := walk(t, Options{Root: root, Known: known, Rehash: true}).by["a.go"]; d.Change != record.ChangeUnchanged {
		t.Errorf("rehash of identical content: %q", d.Change)
	}
}

func TestKnownStatesReread(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"err.go": "package e", "back.go": "package b", "old.md": "# o"})
	first := walk(t, Options{Root: root})
	known := knownFrom(first.docs)
	// A file that failed last time is reread even though size+mtime match.
	k := known["err.go"]
	k.Status, k.Code, k.ContentHash = record.StatusError, string(errcode.ExtractFailed), ""
	known["err.go"] = k
	// A tombstoned file that is back is new.
	k = known["back.go"]
	k.Deleted = true
	known["back.go"] = k
	// A skipped verdict without a stored code cannot be replayed: reread.
	k = known["old.md"]
	k.Status, k.Code = record.StatusSkipped, ""
	known["old.md"] = k

	r := walk(t, Options{Root: root, Known: known})
	if d := r.by["err.go"]; d.Status != record.StatusOK || d.Change != record.ChangeModified {
		t.Errorf("err.go: %q %q, want ok modified", d.Status, d.Change)
	}
	if d := r.by["back.go"]; d.Change != record.ChangeNew {
		t.Errorf("back.go: %q, want new", d.Change)
	}
	if d := r.by["old.md"]; d.Status != record.StatusOK || d.Change != record.ChangeModified {
		t.Errorf("old.md: %q %q, want ok modified", d.Status, d.Change)
	}
	if r.stats.BytesRead == 0 {
		t.Error("nothing was reread")
	}
	// Known tombstones that stay gone produce nothing.
	known = map[string]Known{"long-gone.go": {Deleted: true, Status: record.StatusOK}}
	if r := walk(t, Options{Root: root, Known: known}); r.stats.Deleted != 0 {
		t.Errorf("a tombstone was deleted again: %+v", r.stats)
	}
}

func TestNewlyExcludedKnownFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"fixtures/a.txt":   "fixture a",
		"fixtures/b/c.txt": "fixture c",
		"keys.txt":         "token = abcdefghij0klmnopqrstuvwxyz",
		"ok.txt":           "fine",
	})
	none, _ := exclude.New(nil, nil)
	first := walk(t, Options{Root: root, Exclude: none})
	if first.stats.Skipped != 0 {
		t.Fatalf("first scan skipped files: %+v", first.stats)
	}
	known := knownFrom(first.docs)

	strict, _ := exclude.New([]string{"fixtures/"}, exclude.DefaultSecretPatterns)
	r := walk(t, Options{Root: root, Exclude: strict, Known: known})
	for _, rel := range []string{"fixtures/a.txt", "fixtures/b/c.txt"} {
		d := r.by[rel]
		if d.Status != record.StatusSkipped || d.Code != string(errcode.PathExcluded) || d.Change != record.ChangeModified ||
			!strings.Contains(d.Reason, `"fixtures/"`) {
			t.Errorf("%s: %q %q %q %q; want skipped PATH_EXCLUDED modified", rel, d.Status, d.Code, d.Change, d.Reason)
		}
	}
	// The secret patterns changed; the caller passes Rehash (fingerprints differ).
	if none.Fingerprint() == strict.Fingerprint() {
		t.Fatal("fingerprints do not tell the engines apart")
	}
	r = walk(t, Options{Root: root, Exclude: strict, Known: known, Rehash: true})
	if d := r.by["keys.txt"]; d.Code != string(errcode.SecretExcluded) || d.Change != record.ChangeModified {
		t.Errorf("keys.txt: %q %q; want SECRET_EXCLUDED modified", d.Code, d.Change)
	}
	// Once stored as excluded, the excluded directory's files stay
	// unchanged skipped records on later scans.
	r2 := walk(t, Options{Root: root, Exclude: strict, Known: knownFrom(r.docs)})
	if d := r2.by["fixtures/b/c.txt"]; d.Change != record.ChangeUnchanged || d.Status != record.StatusSkipped {
		t.Errorf("fixtures/b/c.txt on the next scan: %q %q", d.Change, d.Status)
	}
}

// A document the extract stage deferred (no provider for its type) is
// unchanged while its bytes are, with or without the size+mtime shortcut.
func TestDeferredDocumentsAreUnchanged(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"scan.pdf": "%PDF-1.4\n%fake but classified as pdf\n"})
	first := walk(t, Options{Root: root})
	known := knownFrom(first.docs)
	k := known["scan.pdf"]
	k.Status, k.Code, k.Reason = record.StatusSkipped, string(errcode.AwaitingProvider), "needs OCR"
	known["scan.pdf"] = k
	for _, rehash := range []bool{false, true} {
		r := walk(t, Options{Root: root, Known: known, Rehash: rehash})
		if d := r.by["scan.pdf"]; d.Change != record.ChangeUnchanged || d.Status != record.StatusOK {
			t.Errorf("rehash=%v: %q %q, want ok unchanged", rehash, d.Status, d.Change)
		}
	}
	os.WriteFile(filepath.Join(root, "scan.pdf"), []byte("%PDF-1.4\n%different content now\n"), 0o644)
	if d := walk(t, Options{Root: root, Known: known}).by["scan.pdf"]; d.Change != record.ChangeModified {
		t.Errorf("edited deferred file: %q, want modified", d.Change)
	}
}
