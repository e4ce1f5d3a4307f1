package indexer

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// A flush appends a segment; a torn segment (a crash or a bad disk cut it
// short) is detected on the next run, named in a notice, and exactly its
// chunks are embedded again.
func TestTornSegmentIsReembedded(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": codeFile(30, "x")})
	f.run(hasher(t, 64))
	before := f.counts().ChunksByKind[record.KindCode]
	writeFile(t, filepath.Join(f.root, "b.go"), codeFile(12, "y"))
	f.run(hasher(t, 64))
	added := f.counts().ChunksByKind[record.KindCode] - before
	segDir := f.dir.Join(vector.SegmentDir(record.KindCode))
	ents, err := os.ReadDir(segDir)
	if err != nil || len(ents) != 2 {
		t.Fatalf("want 2 segments after 2 runs, have %d (%v)", len(ents), err)
	}
	names := []string{ents[0].Name(), ents[1].Name()}
	slices.Sort(names)
	newest := filepath.Join(segDir, names[1])
	st, _ := os.Stat(newest)
	if err := os.Truncate(newest, st.Size()-9); err != nil {
		t.Fatal(err)
	}
	f.log.Reset()
	again := f.run(hasher(t, 64))
	if again.Embedded != added {
		t.Errorf("re-embedded %d chunks, want the torn segment's %d", again.Embedded, added)
	}
	if !strings.Contains(f.log.String(), "dropped") {
		t.Errorf("no notice naming the dropped segment:\n%s", f.log.String())
	}
	s, err := vector.Open(f.dir.Join(vector.FileName(record.KindCode)))
	if err != nil {
		t.Fatal(err)
	}
	if int64(s.Len()) != f.counts().ChunksByKind[record.KindCode] {
		t.Errorf("index has %d vectors, store %d code chunks", s.Len(), f.counts().ChunksByKind[record.KindCode])
	}
}

// An index written by an earlier build (format 1, one file) is converted
// to segments by the next run without embedding anything again.
func TestFormat1IndexIsConverted(t *testing.T) {
	f := newFixture(t, map[string]string{"a.go": codeFile(30, "x"), "b.md": "# T\n\nsome text\n"})
	f.run(hasher(t, 64))
	for _, kind := range []string{record.KindText, record.KindCode} {
		path := f.dir.Join(vector.FileName(kind))
		s, err := vector.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ix, _ := vector.New(s.Model(), s.Dim())
		for _, l := range s.Labels() {
			v, _ := s.Vector(l)
			ix.Upsert(l, v)
		}
		os.Remove(path)
		os.RemoveAll(f.dir.Join(vector.SegmentDir(kind)))
		if err := ix.WriteFile(path); err != nil {
			t.Fatal(err)
		}
	}
	again := f.run(hasher(t, 64))
	if again.Embedded != 0 {
		t.Errorf("re-embedded %d chunks of a format-1 index", again.Embedded)
	}
	for _, kind := range []string{record.KindText, record.KindCode} {
		path := f.dir.Join(vector.FileName(kind))
		if _, err := vector.Load(path); err == nil {
			t.Errorf("%s is still format 1", kind)
		}
		s, err := vector.Open(path)
		if err != nil || int64(s.Len()) != f.counts().ChunksByKind[kind] {
			t.Errorf("%s: %v, %d vectors for %d chunks", kind, err, s.Len(), f.counts().ChunksByKind[kind])
		}
	}
}

// The unflushed vectors of a kind are bounded by Embedding.MaxPending, not
// by the flush interval: with an interval longer than the run, a cap of
// 40 vectors flushes every 40 or so (each flush a segment on disk), and
// every chunk still ends with its vector.
func TestPendingVectorsAreCapped(t *testing.T) {
	files := map[string]string{}
	for i := range 12 {
		files["f"+strconv.Itoa(i)+".go"] = codeFile(40, "x"+strconv.Itoa(i))
	}
	f := newFixture(t, files)
	f.cfg.Chunking.Code.MaxLines = 20
	f.run(hasher(t, 64))
	chunks := f.counts().ChunksByKind[record.KindCode]
	if chunks < 200 {
		t.Fatalf("fixture has only %d code chunks", chunks)
	}
	// A new model makes every chunk pending again.
	flushes := map[string]int{}
	e := &Embedding{Store: f.st, Dir: f.dir, Embedders: hasher(t, 32), BatchSize: 8, Concurrency: 1,
		MinFlush: time.Hour, MaxPending: 40 * 32 * 4, Flushed: func(kind string) { flushes[kind]++ }}
	if err := e.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if min := int(chunks) / 56; flushes[record.KindCode] < min {
		t.Errorf("%d code chunks embedded in %d flushes, want at least %d", chunks, flushes[record.KindCode], min)
	}
	s, err := vector.Open(f.dir.Join(vector.FileName(record.KindCode)))
	if err != nil {
		t.Fatal(err)
	}
	if int64(s.Len()) != chunks || s.Model() != "hash-v1/32" {
		t.Errorf("index has %d vectors of %s, want %d of hash-v1/32", s.Len(), s.Model(), chunks)
	}
}
