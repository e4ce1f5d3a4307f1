package indexer

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// Job is one complete in-process indexing run: scan → extract → embed over
// channels of the same records the stage binaries exchange as NDJSON.
type Job struct {
	Config    *config.Config
	Root      string
	Dir       state.Dir
	Store     *store.Store
	Embedders map[string]embed.Embedder
	Events    *events.Emitter
	Progress  *Progress
	// Full discards the existing index content first (dir2mcp reindex).
	Full bool
	// Flushed is called after each vector file replacement (see Embedding).
	Flushed func(kind string)
	// Media turns PDFs, images and audio into text (nil: offline text
	// layers only).
	Media *Media
	// OnDir, if set, is called with each directory before the scan lists
	// it (a file watcher registers it there; see ScanInput.OnDir).
	OnDir func(absDir string)
	// Preloaded, if set, holds the indexed states read ahead (Preload).
	Preloaded *Preloaded
}

// Run takes the writer locks and indexes the root. It returns when every
// document is extracted and every chunk embedded (or on the first fatal
// error). Per-document failures are recorded, counted and reported as
// file_error events, never fatal.
func (j *Job) Run(ctx context.Context) error {
	release, err := Lock(j.Dir)
	if err != nil {
		return err
	}
	defer release()
	return j.RunLocked(ctx)
}

// Lock takes the writer locks a Job needs: the index lock, then the vectors
// lock. Another writer holding either is INDEX_LOCKED (its cause a
// *state.LockedError naming the holder).
func Lock(d state.Dir) (release func(), err error) {
	ilock, err := d.TryLock(state.IndexLock)
	if err != nil {
		return nil, err
	}
	vlock, err := d.TryLock(state.VectorsLock)
	if err != nil {
		ilock.Unlock()
		return nil, err
	}
	return func() { vlock.Unlock(); ilock.Unlock() }, nil
}

// RunLocked is Run for a caller that already holds the writer locks (see
// Lock).
func (j *Job) RunLocked(ctx context.Context) error {
	if j.Progress == nil {
		j.Progress = &Progress{}
	}
	// The chunks this job writes go into the keyword index, which is not
	// settled while the job runs.
	postings.Ensure(j.Store, j.Dir, func(msg string) {
		if j.Events != nil {
			j.Events.Emit(events.Info, record.EvNotice, map[string]any{"message": msg})
		}
	})
	defer postings.Working(j.Dir.Path)()
	if j.Full {
		if err := j.reset(ctx); err != nil {
			return err
		}
	}
	changed, err := PolicyChanged(ctx, j.Store, j.Config, j.Media)
	if err != nil {
		return err
	}
	emb := &Embedding{
		Store: j.Store, Dir: j.Dir, Embedders: j.Embedders, Progress: j.Progress, Events: j.Events,
		BatchSize: j.Config.Embed.BatchSize, Concurrency: j.Config.Embed.Concurrency, Flushed: j.Flushed,
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	docs := make(chan record.Document, 256)
	notify := make(chan struct{}, 1)
	var wg sync.WaitGroup
	var scanErr, extractErr, embedErr error
	// The indexed states, set by the scan before it sends a document.
	var known map[string]scan.Known
	x := &Extractor{Store: j.Store, Config: j.Config, Progress: j.Progress, Events: j.Events,
		Committed: notify, Force: changed || j.Full, Media: j.Media,
		Stored: func(d record.Document) bool {
			k, ok := known[d.RelPath]
			return ok && !k.Deleted && k.SizeBytes == d.SizeBytes && k.MtimeNs == d.MtimeNs
		}}
	wg.Add(3)
	go func() {
		defer wg.Done()
		defer close(docs)
		keeping := true // until the first document the extract stage must see
		_, scanErr = Scan(ctx, j.Config, ScanInput{Root: j.Root, Dir: j.Dir, Store: j.Store, Rehash: changed || j.Full, Warn: WarnTo(j.Events),
			Loaded: func(k map[string]scan.Known) { known = k }, OnDir: j.OnDir, Preloaded: j.Preloaded},
			func(d record.Document) error {
				j.Progress.Found.Add(1)
				if keeping && x.Keep(d) {
					return nil
				}
				keeping = false
				select {
				case docs <- d:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
		if scanErr != nil {
			cancel()
		}
		j.Progress.ScanDone.Store(true)
	}()
	go func() {
		defer wg.Done()
		defer close(notify)
		extractErr = x.Run(ctx, docs)
		if extractErr != nil {
			cancel()
		}
		j.Progress.ExtractDone.Store(true)
	}()
	go func() {
		defer wg.Done()
		// The vector files open (and are reconciled with the store) while
		// the scan walks: on a no-op run the two are most of the work.
		if embedErr = emb.Open(ctx); embedErr == nil {
			embedErr = emb.Run(ctx, notify)
		}
		if embedErr != nil {
			cancel()
		}
	}()
	wg.Wait()
	for _, e := range []error{scanErr, extractErr, embedErr} {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// The run is complete when its chunks are searchable by keyword too.
	if err := j.Store.SyncPostings(ctx); err != nil {
		return err
	}
	if changed {
		if err := SavePolicy(ctx, j.Store, j.Config, j.Media); err != nil {
			return err
		}
	}
	// Last, once nothing else is written: the vector files and the store
	// agree, and the next run need not compare them.
	return emb.Seal(ctx)
}

// reset discards all indexed content and vector files (reindex).
func (j *Job) reset(ctx context.Context) error {
	if err := j.Store.Update(ctx, func(tx *store.Tx) error { return tx.ResetContent() }); err != nil {
		return err
	}
	for _, kind := range []string{record.KindText, record.KindCode} {
		if err := os.Remove(j.Dir.Join(vector.FileName(kind))); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.RemoveAll(j.Dir.Join(vector.SegmentDir(kind))); err != nil {
			return err
		}
	}
	return nil
}

// WarnTo reports scan warnings as notice events.
func WarnTo(ev *events.Emitter) func(relPath, msg string) {
	return func(relPath, msg string) {
		data := map[string]any{"message": msg}
		if relPath != "" { // a warning about the whole walk
			data["rel_path"] = relPath
		}
		ev.Emit(events.Warn, record.EvNotice, data)
	}
}
