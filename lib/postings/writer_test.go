package postings

import (
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// newRefWriter returns a writer on a new dir (store "store-1") and the
// FTS5 reference table that commit keeps beside it.
func newRefWriter(t *testing.T) (string, *Writer, *ftsTable) {
	t.Helper()
	dir := t.TempDir()
	w, err := OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	w.Reset("store-1")
	return dir, w, newFTSTable(t)
}

// commit applies bt to the reference and to w, and flushes w as applied
// through change applied.
func commit(t *testing.T, w *Writer, ref *ftsTable, bt batch, applied int64) {
	t.Helper()
	ref.apply(t, bt)
	if err := w.Add(bt.add); err != nil {
		t.Fatal(err)
	}
	w.Delete(bt.del)
	if err := w.Flush(applied); err != nil {
		t.Fatal(err)
	}
}

// A Writer's flushes and merges keep the index equal to FTS5 on the same
// changes; a reopened writer and a reader see the same index; files of
// merged-away segments are removed.
func TestWriterFlushMergeReopen(t *testing.T) {
	dir, w, ref := newRefWriter(t)
	r := rand.New(rand.NewSource(2))
	next := int64(1)
	for round := range 30 {
		var bt batch
		for range 40 + r.Intn(40) {
			bt.add = append(bt.add, randomDoc(r, next))
			next++
		}
		for range 5 {
			bt.add = append(bt.add, randomDoc(r, 1+r.Int63n(next-1)))
			bt.del = append(bt.del, 1+r.Int63n(next-1))
		}
		if round%7 == 0 { // packed frequencies' exceptions survive merges
			bt.add = append(bt.add, Doc{ID: next, Kind: "code", Cols: [numCols]string{
				strings.Repeat("buffer ", 9), strings.Repeat("reader ", 12), strings.Repeat("read ", 1500) + "tls"}})
			next++
		}
		commit(t, w, ref, bt, int64(round+1))
	}
	if w.Snapshot().Segments() >= 30 {
		t.Fatalf("%d segments after 30 flushes: no merge happened", w.Snapshot().Segments())
	}
	ents, _ := os.ReadDir(filepath.Join(dir, SegmentDir))
	if len(ents) != w.Snapshot().Segments() {
		t.Errorf("%d segment files, %d listed", len(ents), w.Snapshot().Segments())
	}
	reader, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := OpenWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w2.StoreID() != "store-1" || w2.Applied() != 30 || reader.Applied() != 30 {
		t.Fatalf("reopened: store %q applied %d / %d", w2.StoreID(), w2.Applied(), reader.Applied())
	}
	for _, s := range []*Snapshot{w.Snapshot(), reader, w2.Snapshot()} {
		for _, q := range []Query{
			{Groups: [][]string{{"read", "buffer", "tls"}}},
			{Groups: [][]string{{"instance"}, {"returns", "first", "instance"}}},
			{Groups: [][]string{{"reader"}}, Cols: 1 << ColTitle, Kinds: []string{"code"}},
			{Groups: [][]string{{"read", "buffer"}}},
		} {
			q.Weights, q.Limit = defaultWeights, 50
			got, err := s.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			if want := ref.search(t, q); !slices.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", expr(q), head(got), head(want))
			}
		}
	}
	// Everything merged into one segment drops the tombstones and dead rows.
	if err := w2.merge(0); err != nil {
		t.Fatal(err)
	}
	if s := w2.Snapshot(); s.Segments() != 1 || int64(len(s.segs[0].ids)) != s.Rows() || len(s.segs[0].tombs) != 0 {
		t.Errorf("full merge: %d segments, %d rows stored, %d live, %d tombstones", s.Segments(), len(s.segs[0].ids), s.Rows(), len(s.segs[0].tombs))
	}
}

// A segment damaged on disk is refused with STORE_CORRUPT, by the writer
// when it merges and by readers when the header or tables are wrong;
// never a crash (Search, Holding).
func TestDamagedSegment(t *testing.T) {
	dir := t.TempDir()
	w, _ := OpenWriter(dir)
	w.Reset("s")
	r := rand.New(rand.NewSource(3))
	var docs []Doc
	for i := range 200 {
		docs = append(docs, randomDoc(r, int64(i+1)))
	}
	w.Add(docs)
	if err := w.Flush(1); err != nil {
		t.Fatal(err)
	}
	path := segPath(dir, w.man.Segments[0].Seq)
	data, _ := os.ReadFile(path)
	for _, at := range []int{10, 200, len(data) / 2, len(data) - 3} {
		bad := slices.Clone(data)
		bad[at] ^= 0x5a
		os.WriteFile(path, bad, 0o600)
		s, err := Open(dir)
		if err != nil {
			continue // refused at open
		}
		s.Holding("read", 1<<ColTitle, []int64{1, 100, 200}) // an answer or an error, never a crash
		if _, err := s.Search(Query{Groups: [][]string{{"read", "file"}}, Weights: defaultWeights, Limit: 10}); err != nil {
			continue
		}
		if err := s.segs[0].verify(); err == nil {
			t.Errorf("byte %d flipped: verify found nothing", at)
		}
	}
}

// An idle index of more than settleMin segments is merged into one by
// Settle, searches rank exactly as before (and as FTS5 does), a reader
// opening the dir sees the one segment, and a settled index is left alone.
func TestSettle(t *testing.T) {
	dir, w, ref := newRefWriter(t)
	r := rand.New(rand.NewSource(3))
	next := int64(1)
	for round := range 7 { // fewer than mergeFanout: the merge policy keeps them
		var bt batch
		for range 30 + r.Intn(30) {
			bt.add = append(bt.add, randomDoc(r, next))
			next++
		}
		bt.del = append(bt.del, 1+r.Int63n(next-1))
		commit(t, w, ref, bt, int64(round+1))
	}
	if n := w.Snapshot().Segments(); n <= settleMin {
		t.Fatalf("%d segments before settling: the test needs more than %d", n, settleMin)
	}
	queries := []Query{
		{Groups: [][]string{{"read", "buffer", "tls"}}},
		{Groups: [][]string{{"instance"}, {"returns", "first", "instance"}}},
		{Groups: [][]string{{"the", "read", "write", "file"}}, Kinds: []string{"text"}},
	}
	check := func(s *Snapshot, when string) {
		for _, q := range queries {
			q.Weights, q.Limit = defaultWeights, 40
			got, err := s.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			if want := ref.search(t, q); !slices.Equal(got, want) {
				t.Errorf("%s, %s: got %v, want %v", when, expr(q), head(got), head(want))
			}
		}
	}
	check(w.Snapshot(), "before")
	if merged, err := w.Settle(); err != nil || !merged {
		t.Fatalf("Settle: merged %v, %v", merged, err)
	}
	reader, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Snapshot{w.Snapshot(), reader} {
		if s.Segments() != 1 {
			t.Fatalf("%d segments after Settle", s.Segments())
		}
		check(s, "settled")
	}
	if merged, err := w.Settle(); err != nil || merged {
		t.Fatalf("Settle of a settled index: merged %v, %v", merged, err)
	}
}
