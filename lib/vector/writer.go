package vector

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Writer maintains one index on disk (format 2) for a single writing
// process (the caller holds the state dir's vectors lock). Upserts and
// deletes collect in memory until Flush appends them as one new segment
// (new vectors plus tombstones) and replaces the manifest, so memory holds
// only what changed since the last flush and a flush writes only that.
// Segments are merged in the background of Flush when they pile up (see
// compact.go). A Writer is not safe for concurrent use.
type Writer struct {
	path    string
	man     manifest
	exists  bool // a format-2 manifest is on disk
	snap    *Snapshot
	pending *Index
	tombs   map[int64]struct{}
	dropped []string
}

// OpenWriter opens the index at path (FileName(kind) in a state dir) for
// writing. A missing file is an empty index with no model; a format-1
// file is loaded and written as format 2 by the next Flush. Every listed
// segment is verified in full; a torn or corrupt one is dropped (see
// Dropped), so its labels have no vector. A manifest that cannot be read
// is STORE_CORRUPT or INDEX_VERSION_MISMATCH; the caller may Reset.
func OpenWriter(path string) (*Writer, error) {
	w := &Writer{path: path, tombs: map[int64]struct{}{}}
	if err := os.MkdirAll(segDirOf(path), 0o700); err != nil {
		return nil, errcode.Wrap(errcode.Internal, err, "vector segments %s: %v", segDirOf(path), err)
	}
	m, legacy, _, err := readIndexFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		w.man = manifest{nextSeq: freshSeq()}
	case err != nil:
		return nil, err
	case legacy != nil:
		w.man = manifest{model: legacy.model, dim: legacy.dim, nextSeq: freshSeq()}
		w.pending = legacy
	default:
		w.man, w.exists = *m, true
		var segs []*segment
		var kept []segEntry
		for _, e := range m.segs {
			g, err := openSegment(segPath(path, e.seq), e.seq, m.dim, true)
			if err == nil && (uint64(g.rows()) != e.rows || g.size != e.size) {
				g.release()
				err = errors.New("segment does not match its manifest entry")
			}
			if err != nil {
				w.dropped = append(w.dropped, fmt.Sprintf("%s: %v", segName(e.seq), err))
				continue
			}
			segs, kept = append(segs, g), append(kept, e)
		}
		w.man.segs = kept
		w.snap = newSnapshot(m.model, m.dim, segs, nil)
	}
	if w.pending == nil && w.man.dim > 0 {
		w.pending, _ = New(w.man.model, w.man.dim)
	}
	w.removeUnlisted()
	return w, nil
}

// freshSeq is the first segment number of a new index: the clock, so a
// reader that still maps segments of an index since removed (reindex)
// never takes a new segment for an old one of the same number.
func freshSeq() uint64 { return uint64(time.Now().UnixMicro()) }

// Dropped names the segments OpenWriter found torn or corrupt and left
// out; their vectors are lost and must be embedded again.
func (w *Writer) Dropped() []string { return w.dropped }

// Model returns the embedder ID of the index ("" when empty and new).
func (w *Writer) Model() string { return w.man.model }

// Dim returns the vector length (0 when empty and new).
func (w *Writer) Dim() int { return w.man.dim }

// Reset discards every vector and sets the index's model and dimension;
// the next Flush writes an index holding only what was upserted since.
func (w *Writer) Reset(model string, dim int) error {
	p, err := New(model, dim)
	if err != nil {
		return err
	}
	w.closeSegs(nil)
	w.man = manifest{model: model, dim: dim, nextSeq: w.man.nextSeq}
	w.exists = false // the manifest on disk is not this index
	w.snap, w.pending, w.tombs = nil, p, map[int64]struct{}{}
	return nil
}

// Has reports whether label has a vector (flushed or not).
func (w *Writer) Has(label int64) bool {
	if w.pending.Has(label) {
		return true
	}
	_, gone := w.tombs[label]
	return !gone && w.snap.Has(label)
}

// Labels returns every label with a vector, ascending.
func (w *Writer) Labels() []int64 {
	var out []int64
	for _, l := range w.snap.Labels() {
		if _, gone := w.tombs[l]; !gone && !w.pending.Has(l) {
			out = append(out, l)
		}
	}
	out = append(out, w.pending.Labels()...)
	slices.Sort(out)
	return out
}

// Len returns the number of labels with a vector.
func (w *Writer) Len() int { return len(w.Labels()) }

// Upsert stores a copy of vec under label until the next Flush. vec must
// have length Dim and finite elements.
func (w *Writer) Upsert(label int64, vec []float32) error {
	if w.pending == nil {
		return errcode.New(errcode.Internal, "vector index %s has no model yet: Reset first", w.path)
	}
	return w.pending.Upsert(label, vec)
}

// Delete removes the vectors of labels, ignoring labels without one, and
// returns how many it removed.
func (w *Writer) Delete(labels ...int64) int {
	n := 0
	for _, l := range labels {
		had := w.pending != nil && w.pending.Delete(l) > 0
		if _, gone := w.tombs[l]; !gone && w.snap.Has(l) {
			w.tombs[l] = struct{}{}
			had = true
		}
		if had {
			n++
		}
	}
	return n
}

// PendingBytes returns the memory the unflushed vectors take (their
// float32 elements); a caller bounds it by flushing.
func (w *Writer) PendingBytes() int64 {
	if w.pending == nil {
		return 0
	}
	return 4 * int64(w.pending.Len()) * int64(w.man.dim)
}

// Dirty reports whether Flush has anything to write: changes, or segments
// of an earlier build (version 2) to rewrite with one-bit codes.
func (w *Writer) Dirty() bool {
	if !w.exists || w.pending.Len() > 0 || len(w.tombs) > 0 {
		return true
	}
	for _, g := range w.snapSegs() {
		if g.nbits == 0 {
			return true
		}
	}
	return false
}

// Flush makes every upsert and delete durable: it writes them as a new
// segment (fsynced; the vectors straight from memory, with their codes
// computed), merges segments when they pile up, rewrites segments of an
// earlier build with one-bit codes, then replaces the manifest atomically
// and removes the segment files it no longer lists.
// Readers see the old or the new index, never a mix. On error nothing
// visible changed and the changes stay pending.
func (w *Writer) Flush() error {
	if !w.Dirty() {
		return nil
	}
	if w.pending == nil {
		return errcode.New(errcode.Internal, "vector index %s has no model yet: Reset first", w.path)
	}
	man := w.man
	man.segs = slices.Clone(man.segs)
	segs := slices.Clone(w.snapSegs())
	if n, t := w.pending.Len(), len(w.tombs); n > 0 || t > 0 {
		tombs := make([]int64, 0, t)
		for l := range w.tombs {
			if !w.pending.Has(l) {
				tombs = append(tombs, l)
			}
		}
		if len(segs) == 0 {
			tombs = nil // nothing older to shadow
		}
		p, d := w.pending, man.dim
		vec := func(i int) []float32 { return p.vecs[i*d : (i+1)*d] }
		// The codes in the heap, the vectors written from pending.
		g, order := memSegment(d, p.labels, vec, tombs, false)
		row := func(r int) (int64, float32, []int8, []float32) {
			return g.labels[r], g.scales[r], g.codes[r*g.stride : (r+1)*g.stride], vec(order[r])
		}
		seq := man.nextSeq
		if err := writeSegment(segPath(w.path, seq), d, g.rows(), g.tombs, row, g.bitsOf()); err != nil {
			return w.writeError(err)
		}
		ng, err := openWritten(segPath(w.path, seq), seq, man.dim)
		if err != nil {
			return w.writeError(err)
		}
		man.nextSeq++
		man.segs = append(man.segs, segEntry{seq: seq, rows: uint64(ng.rows()), size: ng.size})
		segs = append(segs, ng)
	}
	snap := newSnapshot(man.model, man.dim, segs, w.snap)
	// replace merges segs[i:j] into one segment.
	replace := func(i, j int) error {
		merged, err := w.merge(snap, i, j, &man)
		if err != nil {
			return err
		}
		for _, g := range segs[i:j] {
			if !slices.Contains(w.snapSegs(), g) {
				g.release() // the new segment, merged already
			}
		}
		segs = slices.Concat(segs[:i:i], []*segment{merged}, segs[j:])
		man.segs = slices.Concat(man.segs[:i:i], []segEntry{{seq: merged.seq, rows: uint64(merged.rows()), size: merged.size}}, man.segs[j:])
		snap = newSnapshot(man.model, man.dim, segs, snap)
		return nil
	}
	if i := mergePlan(snap); i >= 0 {
		if err := replace(i, len(segs)); err != nil {
			return w.writeError(err)
		}
	}
	// Segments of earlier builds (version 2) get their one-bit codes.
	for i := range segs {
		if segs[i].nbits == 0 {
			if err := replace(i, i+1); err != nil {
				return w.writeError(err)
			}
		}
	}
	if err := syncDir(segDirOf(w.path)); err != nil {
		return w.writeError(err)
	}
	if err := writeManifest(w.path, &man); err != nil {
		return w.writeError(err)
	}
	w.closeSegs(segs)
	w.man, w.exists, w.snap = man, true, snap
	w.pending, _ = New(man.model, man.dim)
	w.tombs = map[int64]struct{}{}
	w.removeUnlisted()
	return nil
}

// Close releases the mapped segments. Unflushed changes are discarded.
func (w *Writer) Close() error {
	w.closeSegs(nil)
	w.snap = nil
	return nil
}

func (w *Writer) snapSegs() []*segment {
	if w.snap == nil {
		return nil
	}
	return w.snap.segs
}

// closeSegs unmaps the writer's segments that are not in keep.
func (w *Writer) closeSegs(keep []*segment) {
	for _, g := range w.snapSegs() {
		if !slices.Contains(keep, g) && g.release != nil {
			g.release()
		}
	}
}

// removeUnlisted deletes segment files the manifest does not list
// (merged away, or left by a crash before their manifest was written).
func (w *Writer) removeUnlisted() {
	ents, _ := os.ReadDir(segDirOf(w.path))
	listed := map[uint64]bool{}
	if w.exists {
		for _, e := range w.man.segs {
			listed[e.seq] = true
		}
	}
	for _, e := range ents {
		seq, ok := seqOfName(e.Name())
		if ok && listed[seq] {
			continue
		}
		if ok || len(e.Name()) > 5 && e.Name()[:5] == ".seg-" {
			os.Remove(segDirOf(w.path) + string(os.PathSeparator) + e.Name())
		}
	}
}

func (w *Writer) writeError(err error) error {
	return errcode.Wrap(errcode.StoreCorrupt, err, "write vector index %s: %v", w.path, err)
}

// syncDir fsyncs a directory so renames into it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
