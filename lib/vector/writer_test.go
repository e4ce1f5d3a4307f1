package vector

import (
	"errors"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// model is what an index should hold: label → vector.
type model map[int64][]float32

// checkSnapshot asserts s holds exactly m, with exact Dot values.
func checkSnapshot(t *testing.T, s *Snapshot, m model) {
	t.Helper()
	if s.Len() != len(m) {
		t.Fatalf("snapshot has %d vectors, want %d", s.Len(), len(m))
	}
	want := make([]int64, 0, len(m))
	for l, v := range m {
		want = append(want, l)
		got, ok := s.Vector(l)
		if !ok || !slices.Equal(got, v) {
			t.Fatalf("label %d: vector %v (ok %v), want the stored one", l, ok, ok)
		}
		if d, ok := s.Dot(l, v); !ok || d != dotF32(v, v) {
			t.Fatalf("label %d: Dot %v %v, want exact %v", l, d, ok, dotF32(v, v))
		}
	}
	slices.Sort(want)
	if got := s.Labels(); !slices.Equal(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
}

// churn runs rounds of: upsert perRound random labels below maxLabel,
// every third round delete dels random labels, flush; it checks the
// writer's count and Delete's answers as it goes and returns the model.
func churn(t *testing.T, w *Writer, r *rand.Rand, rounds, perRound, dels, maxLabel int) model {
	t.Helper()
	m := model{}
	for round := range rounds {
		for range perRound {
			l := int64(r.Intn(maxLabel))
			v := unit(r, w.Dim())
			must(t, w.Upsert(l, v))
			m[l] = v
		}
		if round%3 == 0 {
			for range dels {
				l := int64(r.Intn(maxLabel))
				_, had := m[l]
				if n := w.Delete(l); (n == 1) != had {
					t.Fatalf("Delete(%d) = %d, had %v", l, n, had)
				}
				delete(m, l)
			}
		}
		must(t, w.Flush())
		if w.Len() != len(m) {
			t.Fatalf("round %d: writer has %d, want %d", round, w.Len(), len(m))
		}
	}
	return m
}

func newWriter(t *testing.T, dim int) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName("text"))
	w, err := OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Reset("m", dim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, path
}

// Upserts, overwrites and deletes across many flushes read back exactly,
// from the writer, from a reopened writer and from a reader; compaction
// keeps the number of segments small and leaves no unlisted files.
func TestWriterFlushesSegmentsAndCompacts(t *testing.T) {
	const dim = 24
	w, path := newWriter(t, dim)
	m := churn(t, w, rand.New(rand.NewSource(7)), 60, 50, 20, 2000)
	checkSnapshot(t, w.snap, m)
	if n := w.snap.Segments(); n > mergeFanout+2 {
		t.Errorf("%d segments after 60 flushes, compaction should keep them few", n)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, s, m)
	ents, _ := os.ReadDir(segDirOf(path))
	if len(ents) != s.Segments() {
		t.Errorf("%d files in the segment dir, manifest lists %d", len(ents), s.Segments())
	}
	w.Close()
	w2, err := OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.Model() != "m" || w2.Dim() != dim || w2.Len() != len(m) || w2.Dirty() {
		t.Errorf("reopened: model %q dim %d len %d dirty %v", w2.Model(), w2.Dim(), w2.Len(), w2.Dirty())
	}
}

// A flush writes only what changed: the old segments stay as they were.
func TestFlushAppendsOnly(t *testing.T) {
	w, path := newWriter(t, 8)
	r := rand.New(rand.NewSource(1))
	for l := range int64(100) {
		w.Upsert(l, unit(r, 8))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	first := segPath(path, w.man.segs[0].seq)
	st1, _ := os.Stat(first)
	w.Upsert(500, unit(r, 8))
	w.Delete(3)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st2, err := os.Stat(first)
	if err != nil || !os.SameFile(st1, st2) || st2.ModTime() != st1.ModTime() {
		t.Fatalf("first segment rewritten or gone: %v", err)
	}
	if len(w.man.segs) != 2 || w.man.segs[1].rows != 1 {
		t.Errorf("segments %+v, want the old one plus one of 1 row", w.man.segs)
	}
	if w.Has(3) || !w.Has(500) || w.Len() != 100 {
		t.Errorf("has(3)=%v has(500)=%v len=%d", w.Has(3), w.Has(500), w.Len())
	}
}

// A torn segment (cut short, or a flipped byte) is detected: readers
// refuse the index with STORE_CORRUPT, and the writer drops the segment,
// naming it, so exactly its vectors are missing and get re-embedded.
func TestTornSegmentIsDetected(t *testing.T) {
	for _, damage := range []string{"truncate", "flip-code", "flip-vector"} {
		t.Run(damage, func(t *testing.T) {
			w, path := newWriter(t, 16)
			r := rand.New(rand.NewSource(2))
			for l := range int64(10) {
				w.Upsert(l, unit(r, 16))
			}
			w.Flush()
			for l := int64(10); l < 20; l++ {
				w.Upsert(l, unit(r, 16))
			}
			w.Flush()
			w.Close()
			seg := segPath(path, w.man.segs[1].seq)
			b, _ := os.ReadFile(seg)
			_, nbits := bitDims(16)
			lay := layoutOf(16, 10, 0, nbits)
			switch damage {
			case "truncate":
				b = b[:len(b)-5]
			case "flip-code":
				b[lay.codes+3] ^= 1
			case "flip-vector":
				b[lay.vecs+3] ^= 1
			}
			os.WriteFile(seg, b, 0o600)
			if damage != "flip-vector" { // readers verify all but the floats
				if _, err := Open(path); errcode.Of(err) != errcode.StoreCorrupt {
					t.Errorf("Open: %v, want STORE_CORRUPT", err)
				}
			}
			w2, err := OpenWriter(path)
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			if len(w2.Dropped()) != 1 || w2.Len() != 10 || w2.Has(15) || !w2.Has(5) {
				t.Errorf("dropped %v, len %d", w2.Dropped(), w2.Len())
			}
		})
	}
}

// A format-1 file loads (reader and writer), and the writer's next flush
// converts it to format 2 with the same vectors.
func TestLegacyFileConverts(t *testing.T) {
	ix, m := randomIndex(t, 5, 300, 32)
	path := filepath.Join(t.TempDir(), FileName("code"))
	if err := ix.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, s, m)
	w, err := OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Model() != ix.Model() || !w.Dirty() {
		t.Fatalf("writer over a format-1 file: model %q dirty %v", w.Model(), w.Dirty())
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if v, _ := versionOf(b); v != FormatVersion {
		t.Fatalf("file is format %d after a flush", v)
	}
	if _, err := Load(path); errcode.Of(err) != errcode.IndexVersionMismatch {
		t.Errorf("format-1 Load of a format-2 file: %v, want INDEX_VERSION_MISMATCH", err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSnapshot(t, s, m)
}

// A manifest of an unknown future version is INDEX_VERSION_MISMATCH with
// the reindex hint; a missing index is FILE_NOT_FOUND for readers and an
// empty index for the writer.
func TestManifestVersionAndMissing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName("text"))
	if _, err := Open(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open of nothing: %v", err)
	}
	w, err := OpenWriter(path)
	if err != nil || w.Model() != "" || w.Len() != 0 {
		t.Fatalf("OpenWriter of nothing: %v", err)
	}
	w.Reset("m", 4)
	w.Flush()
	b, _ := os.ReadFile(path)
	b[8] = 9
	os.WriteFile(path, b, 0o600)
	_, err = Open(path)
	if errcode.Of(err) != errcode.IndexVersionMismatch || !strings.Contains(err.Error(), "reindex --force") {
		t.Errorf("future manifest: %v", err)
	}
}
