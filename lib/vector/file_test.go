package vector

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestFileName(t *testing.T) {
	if got := FileName("text"); got != "vectors_text.flat" {
		t.Fatalf("FileName(text) = %q", got)
	}
	if got := FileName("code"); got != "vectors_code.flat" {
		t.Fatalf("FileName(code) = %q", got)
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ n, dim int }{{0, 4}, {1, 1}, {3, 3}, {257, 17}, {1000, 512}} {
		ix, vecs := randomIndex(t, int64(tc.n), tc.n, tc.dim)
		ix.Delete(1000) // storage order differs from insertion order
		delete(vecs, 1000)
		path := filepath.Join(dir, FileName("text"))
		must(t, ix.WriteFile(path))
		got, err := Load(path)
		must(t, err)
		if got.Model() != ix.Model() || got.Dim() != tc.dim || got.Len() != len(vecs) {
			t.Fatalf("loaded model=%q dim=%d len=%d, want %q %d %d", got.Model(), got.Dim(), got.Len(), ix.Model(), tc.dim, len(vecs))
		}
		if !slices.Equal(got.Labels(), ix.Labels()) {
			t.Fatal("labels differ after round trip")
		}
		for l, v := range vecs {
			gv, ok := got.Vector(l)
			if !ok || !slices.Equal(gv, v) {
				t.Fatalf("vector %d differs after round trip", l)
			}
		}
		// The loaded index is fully mutable and writable again.
		must(t, got.Upsert(-5, make([]float32, tc.dim)))
		for l := range vecs {
			got.Delete(l)
			break
		}
		must(t, got.WriteFile(path))
		again, err := Load(path)
		must(t, err)
		if !slices.Equal(again.Labels(), got.Labels()) || !again.Has(-5) {
			t.Fatal("second round trip lost changes")
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("state dir holds %d entries, want only the index (temp files left?)", len(entries))
	}
}

func TestLoadMissing(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.flat"))
	if !errors.Is(err, fs.ErrNotExist) || errcode.Of(err) != errcode.FileNotFound {
		t.Fatalf("Load(missing) = %v", err)
	}
}

// writeSample writes a small index and returns its path and bytes.
func writeSample(t *testing.T) (string, []byte) {
	t.Helper()
	ix, _ := randomIndex(t, 9, 20, 8)
	path := filepath.Join(t.TempDir(), FileName("code"))
	must(t, ix.WriteFile(path))
	b, err := os.ReadFile(path)
	must(t, err)
	return path, b
}

func TestCorruptionDetected(t *testing.T) {
	path, orig := writeSample(t)
	body := headerLen(len("test-model/8"))
	labelsEnd := body + 8*20
	cases := map[string]func([]byte) []byte{
		"magic":          flip(0),
		"version byte":   flip(8),
		"dim":            flip(16),
		"count":          flip(24),
		"model id":       flip(fixedHeader + 2),
		"header crc":     flip(body - 8),
		"label":          flip(body + 3),
		"vector":         flip(labelsEnd + 40),
		"last vector":    flip(len(orig) - trailerSize - 1),
		"body crc":       flip(len(orig) - 6),
		"trailer magic":  flip(len(orig) - 1),
		"truncated":      func(b []byte) []byte { return b[:len(b)-1] },
		"torn mid-body":  func(b []byte) []byte { return b[:labelsEnd+13] },
		"header only":    func(b []byte) []byte { return b[:body] },
		"appended":       func(b []byte) []byte { return append(b, 0) },
		"empty":          func([]byte) []byte { return nil },
		"text":           func([]byte) []byte { return []byte("hello world, not an index at all\n") },
		"zeroed trailer": func(b []byte) []byte { clear(b[len(b)-8:]); return b },
	}
	for name, mutate := range cases {
		b := mutate(slices.Clone(orig))
		must(t, os.WriteFile(path, b, 0o600))
		_, err := Load(path)
		if errcode.Of(err) != errcode.StoreCorrupt {
			t.Errorf("%s: Load = %v, want STORE_CORRUPT", name, err)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

func flip(off int) func([]byte) []byte {
	return func(b []byte) []byte { b[off] ^= 0x10; return b }
}

// rewriteHeader patches header fields and fixes the header checksum, to
// build files that are well-formed but unsupported or inconsistent.
func rewriteHeader(b []byte, patch func([]byte)) []byte {
	patch(b)
	m := int(binary.LittleEndian.Uint32(b[20:]))
	h := headerLen(m) - 8
	binary.LittleEndian.PutUint32(b[h:], crc32Castagnoli(b[:h]))
	return b
}

func TestVersionMismatch(t *testing.T) {
	path, orig := writeSample(t)
	b := rewriteHeader(slices.Clone(orig), func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 2) })
	must(t, os.WriteFile(path, b, 0o600))
	_, err := Load(path)
	if errcode.Of(err) != errcode.IndexVersionMismatch || !strings.Contains(err.Error(), path) {
		t.Fatalf("future version: %v, want INDEX_VERSION_MISMATCH naming the file", err)
	}
}

func TestLoadRejectsInconsistentContent(t *testing.T) {
	path, orig := writeSample(t)
	body := headerLen(len("test-model/8"))
	fixBody := func(b []byte) []byte {
		end := len(b) - trailerSize
		binary.LittleEndian.PutUint32(b[end:], crc32Castagnoli(b[body:end]))
		return b
	}
	dup := slices.Clone(orig)
	copy(dup[body+8:body+16], dup[body:body+8]) // label 1 = label 0
	nan := slices.Clone(orig)
	binary.LittleEndian.PutUint32(nan[body+8*20:], math.Float32bits(float32(math.NaN())))
	dim := rewriteHeader(slices.Clone(orig), func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 4) })
	for name, b := range map[string][]byte{"duplicate label": fixBody(dup), "NaN": fixBody(nan), "dim vs size": dim} {
		must(t, os.WriteFile(path, b, 0o600))
		if _, err := Load(path); errcode.Of(err) != errcode.StoreCorrupt {
			t.Errorf("%s: Load = %v, want STORE_CORRUPT", name, err)
		}
	}
}

func TestWriteFileFailsCleanly(t *testing.T) {
	ix, _ := randomIndex(t, 1, 3, 4)
	err := ix.WriteFile(filepath.Join(t.TempDir(), "missing-dir", "x.flat"))
	if err == nil || errcode.Of(err) != errcode.Internal {
		t.Fatalf("WriteFile into a missing dir = %v", err)
	}
}

func crc32Castagnoli(b []byte) uint32 {
	return crc32.Checksum(b, castagnoli)
}
