package postings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Writer maintains the index on disk for a single writing process (the
// caller holds the state dir's postings lock). Added and deleted rows
// collect in memory until Flush writes them as one new segment and
// replaces the manifest; segments are merged when they pile up (see
// mergePlan). A Writer is not safe for concurrent use.
type Writer struct {
	dir  string
	man  manifest
	snap *Snapshot
	b    *builder
	// dirty: the manifest on disk differs from man (Reset, Applied).
	dirty bool
	// pending is the last store change added (flushed or not).
	pending int64
}

// OpenWriter opens the index in stateDir for writing; a missing index is
// empty, with no store id (see StoreID). Listed segments are checked for
// structure (not checksums: merges verify what they read). A segment that
// fails is STORE_CORRUPT; the caller may Reset and rebuild.
func OpenWriter(stateDir string) (*Writer, error) {
	w := &Writer{dir: stateDir, b: newBuilder()}
	if err := os.MkdirAll(filepath.Join(stateDir, SegmentDir), 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "keyword index segments: %v", err)
	}
	m, err := readManifest(stateDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.man = manifest{NextSeq: freshSeq()}
	case err != nil:
		return nil, err
	default:
		w.man, w.pending = *m, m.Applied
		segs, err := openSegments(stateDir, m, nil)
		if err != nil {
			return nil, err
		}
		w.snap = newSnapshot(segs, nil, m)
	}
	w.removeUnlisted()
	return w, nil
}

// freshSeq is the first segment number of a new index: the clock, so a
// reader that still maps segments of an index since removed never takes
// a new segment for an old one of the same number.
func freshSeq() uint64 { return uint64(time.Now().UnixMicro()) }

// StoreID returns the id of the store the index reflects ("" for none).
func (w *Writer) StoreID() string { return w.man.StoreID }

// Applied returns the last store change the flushed index reflects.
func (w *Writer) Applied() int64 { return w.man.Applied }

// Snapshot returns the flushed index.
func (w *Writer) Snapshot() *Snapshot { return w.snap }

// Reset discards every row and binds the index to storeID; the next Flush
// writes an index holding only what was added since.
func (w *Writer) Reset(storeID string) {
	w.b = newBuilder()
	w.man = manifest{StoreID: storeID, NextSeq: w.man.NextSeq}
	w.snap = nil
	w.dirty, w.pending = true, 0
}

// Buffered returns the heap the unflushed rows hold, in bytes (about).
func (w *Writer) Buffered() int64 { return w.b.memBytes() }

// Add tokenizes docs (in parallel) and adds them, replacing rows of the
// same ids.
func (w *Writer) Add(docs []Doc) error {
	return w.addFunc(len(docs), func(i int, d *Doc) { *d = docs[i] })
}

// addFunc adds n rows in order, each made by doc (called on several
// goroutines at once) and tokenized on every CPU, a batch at a time so
// that the tokenized rows in memory stay few.
func (w *Writer) addFunc(n int, doc func(i int, d *Doc)) error {
	const batch = 512
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		rows, err := tokenizeAll(hi-lo, func(i int, d *Doc) { doc(lo+i, d) })
		if err != nil {
			return err
		}
		for i := range rows {
			w.b.add(&rows[i])
		}
	}
	return nil
}

// Delete removes the rows of ids.
func (w *Writer) Delete(ids []int64) {
	for _, id := range ids {
		w.b.remove(id)
	}
}

// tokenizeAll makes and tokenizes n docs on every CPU.
func tokenizeAll(n int, doc func(i int, d *Doc)) ([]tokRow, error) {
	rows := make([]tokRow, n)
	workers := min(runtime.GOMAXPROCS(0), (n+63)/64)
	if workers <= 1 {
		return rows, tokenizeRange(0, n, doc, rows)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for p := range workers {
		lo, hi := p*n/workers, (p+1)*n/workers
		wg.Go(func() { errs[p] = tokenizeRange(lo, hi, doc, rows) })
	}
	wg.Wait()
	return rows, errors.Join(errs...)
}

func tokenizeRange(lo, hi int, doc func(i int, d *Doc), rows []tokRow) error {
	rt, err := newRowTokenizer()
	if err != nil {
		return err
	}
	defer rt.close()
	var d Doc
	for i := lo; i < hi; i++ {
		doc(i, &d)
		if err := rt.tokenize(&d, &rows[i]); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes the unflushed rows as a new segment, records applied as the
// last store change the index reflects, replaces the manifest, and merges
// segments if they piled up. With nothing to write and applied unchanged
// it does nothing.
func (w *Writer) Flush(applied int64) error {
	if w.b.empty() && applied == w.man.Applied && !w.dirty {
		return nil
	}
	man := w.man
	man.Applied = applied
	var segs []*segment
	if w.snap != nil {
		segs = w.snap.segs
	}
	var src segSource
	if !w.b.empty() {
		src = w.b.source()
	}
	segs, err := w.replace(&man, len(segs), segs, src)
	if err != nil {
		return err
	}
	w.man, w.dirty = man, false
	w.pending = max(w.pending, applied)
	w.b = newBuilder()
	w.snap = newSnapshot(segs, w.snap, &w.man)
	err = w.compact()
	local.flushed(filepath.Clean(w.dir))
	return err
}

// settleMin is the most segments an idle index keeps: Settle merges more
// into one.
const settleMin = 4

// Settle merges every segment into one when the index holds more than
// settleMin and nothing unflushed, and reports whether it did. A bulk
// index leaves tens of segments of unaligned sizes that the merge policy
// (mergePlan) keeps, and every search visits each: on the Linux source's
// 34 segments the keyword channel took 1.6–1.7 ms per query, 0.9–1.1 ms
// on the one a merge of 8.8 s made (BenchmarkKeywordChannel).
func (w *Writer) Settle() (bool, error) {
	if w.snap == nil || len(w.snap.segs) <= settleMin || !w.b.empty() {
		return false, nil
	}
	err := w.merge(0)
	local.flushed(filepath.Clean(w.dir))
	return true, err
}

// replace makes man list the first keep of segs, then src written as a
// new segment (none when nil), and writes it; it returns the segments
// man lists.
func (w *Writer) replace(man *manifest, keep int, segs []*segment, src segSource) ([]*segment, error) {
	man.Segments = append([]segEntry(nil), w.man.Segments[:keep]...)
	out := append([]*segment(nil), segs[:keep]...)
	if src != nil {
		g, e, err := w.writeNew(man, src)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
		man.Segments = append(man.Segments, e)
	}
	if err := writeManifest(w.dir, man); err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "write keyword index manifest: %v", err)
	}
	return out, nil
}

// writeNew writes src as the next segment of man.
func (w *Writer) writeNew(man *manifest, src segSource) (*segment, segEntry, error) {
	seq := man.NextSeq
	man.NextSeq++
	path := segPath(w.dir, seq)
	if err := writeSegment(path, src); err != nil {
		return nil, segEntry{}, errcode.Wrap(errcode.StoreCorrupt, err, "write keyword index segment: %v", err)
	}
	g, err := openSegment(path, seq)
	if err != nil {
		os.Remove(path)
		return nil, segEntry{}, errcode.Wrap(errcode.StoreCorrupt, err, "reopen keyword index segment: %v", err)
	}
	g.track()
	return g, segEntry{Seq: seq, Rows: g.counts.n, Size: g.size()}, nil
}

// compact merges segments while mergePlan asks for it.
func (w *Writer) compact() error {
	for w.snap != nil {
		i := mergePlan(w.snap)
		if i < 0 {
			return nil
		}
		if err := w.merge(i); err != nil {
			return err
		}
	}
	return nil
}

// merge replaces snap.segs[i:] with one segment of their live rows.
func (w *Writer) merge(i int) error {
	old := w.snap.segs[i:]
	for _, g := range old {
		if err := g.verify(); err != nil {
			return errcode.Wrap(errcode.StoreCorrupt, err, "keyword index segment %s: %v (rebuild with `dir2mcp reindex`)", segName(g.seq), err)
		}
	}
	man := w.man
	var src segSource
	if m := newMergeSource(w.snap, i); len(m.ids) > 0 || len(m.tombs) > 0 {
		src = m
	}
	segs, err := w.replace(&man, i, w.snap.segs, src)
	if err != nil {
		return err
	}
	w.man = man
	w.snap = newSnapshot(segs, w.snap, &w.man)
	for _, g := range old {
		os.Remove(segPath(w.dir, g.seq)) // readers keep their mapping
	}
	return nil
}

// removeUnlisted deletes segment files the manifest does not list (left
// by a crash between writing a segment and the manifest).
func (w *Writer) removeUnlisted() {
	listed := map[string]bool{}
	for _, e := range w.man.Segments {
		listed[segName(e.Seq)] = true
	}
	ents, _ := os.ReadDir(filepath.Join(w.dir, SegmentDir))
	for _, e := range ents {
		if name := e.Name(); !listed[name] && (strings.HasSuffix(name, ".seg") || strings.HasPrefix(name, ".")) {
			os.Remove(filepath.Join(w.dir, SegmentDir, name))
		}
	}
}
