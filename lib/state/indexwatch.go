package state

import (
	"os"
	"sync"
)

// IndexingWatch tells whether an index run is going, as the state dir's
// corpus.json records it (Indexing.Live: a run whose process is gone is
// not going). It reads the file again only when it was replaced or
// changed since the last read, so a caller may ask per search.
type IndexingWatch struct {
	dir     Dir
	mu      sync.Mutex
	read    os.FileInfo // the file the last read found; nil before one
	indexed Indexing
	readErr error
}

// WatchIndexing returns a watch over d's corpus.json.
func (d Dir) WatchIndexing() *IndexingWatch { return &IndexingWatch{dir: d} }

// Running reports whether an index run is going; err is non-nil when
// corpus.json cannot be read or parsed (then running is false).
func (w *IndexingWatch) Running() (running bool, err error) {
	fi, err := os.Stat(w.dir.Join(CorpusFile))
	if err != nil {
		return false, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.read == nil || !os.SameFile(w.read, fi) || !fi.ModTime().Equal(w.read.ModTime()) || fi.Size() != w.read.Size() {
		c, err := w.dir.ReadCorpus()
		w.read, w.indexed, w.readErr = fi, c.Indexing, err
	}
	if w.readErr != nil {
		return false, w.readErr
	}
	return w.indexed.Live().Running, nil
}
