package indexer

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Extractor is the extract stage: it applies document records to the store,
// (re)building representations and chunks for new and modified documents and
// tombstoning deleted ones. Text files get a raw_text representation; PDFs
// and images ocr_markdown (text layer or OCR, chunked per page); audio a
// transcript (chunked in time windows); archives are expanded into
// archive_member documents (SPEC §7.3–7.5).
type Extractor struct {
	Store    *store.Store
	Config   *config.Config
	Progress *Progress
	Events   *events.Emitter
	// Out receives every chunk created, after it is committed (may be nil).
	Out func(record.Chunk) error
	// Committed is signalled (non-blocking) after each commit that added chunks.
	Committed chan<- struct{}
	// Force rebuilds unchanged documents too (policy change or reindex).
	Force bool
	// Stored, if set, reports whether the index already holds an unchanged
	// document with its size and mtime: nothing is written for it (a
	// no-op run writes nothing).
	Stored func(record.Document) bool
	// Workers extracting in parallel; 0 = GOMAXPROCS (at least 4 when a
	// remote OCR or speech-to-text provider is in use: those calls wait on
	// the network, not the CPU).
	Workers int
	// Media turns PDFs, images and audio into text (nil: text layers of
	// PDFs only).
	Media *Media
	// Read returns a document's bytes instead of reading Root/RelPath
	// (a worker on another host reads them from a stream); nil reads the file.
	Read func(record.Document) ([]byte, error)
	// InCommit runs inside each commit's transaction, after the documents
	// (a replica records the stream position it applied, atomically).
	InCommit func(*store.Tx) error
	// applying is the size of the batch Apply commits: InCommit runs only
	// in a transaction holding all of it, not in the per-document retries.
	applying int

	roots    map[string]*rootfs.Root
	mu       sync.Mutex
	deferred map[string]deferral
	exclude  *exclude.Engine
	redact   *exclude.Redactor // nil: security.redact is off
}

// action is what the writer must do for one document.
type action int

const (
	actReplace   action = iota // upsert document + representation
	actTouch                   // unchanged: refresh size/mtime
	actTombstone               // deleted
	actRecord                  // skipped/error: upsert document, drop content
	actNone                    // nothing to write (the run was cancelled)
	actKeep                    // unchanged and stored as it is: nothing to write
)

type job struct {
	seq int
	doc record.Document
}

type result struct {
	seq    int
	act    action
	doc    record.Document
	title  string
	about  extract.About // resource title/description/tags
	rep    store.RepInput
	pieces []store.ChunkInput
	// archive marks an expanded archive: members are its documents, written
	// after it; its other live members are tombstoned.
	archive bool
	members []result
	// notes are per-member problems reported as file_error events (unsafe
	// member names, which never become documents).
	notes []note
}

type note struct {
	relPath string
	err     *errcode.Error
}

// Run consumes documents until in is closed or ctx ends. Per-document
// failures are recorded on the document and counted; Run returns an error
// only when the store cannot be written.
func (x *Extractor) Run(ctx context.Context, in <-chan record.Document) error {
	if x.Progress == nil {
		x.Progress = &Progress{}
	}
	workers := x.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
		if x.Media.remote() {
			workers = max(workers, 4)
		}
	}
	if err := x.init(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, workers*4)
	results := make(chan result, workers*4)

	go func() {
		defer close(jobs)
		seq := 0
		for {
			select {
			case <-ctx.Done():
				return
			case d, ok := <-in:
				if !ok {
					return
				}
				select {
				case jobs <- job{seq, d}:
					seq++
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := x.prepare(ctx, j)
				select {
				case results <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()
	err := x.write(ctx, results)
	if err != nil {
		cancel()
		for range results { // drain so workers exit
		}
		return err
	}
	return ctx.Err()
}

// Keep accounts for d at once, as the writer would at its commit, when
// nothing is to be written for it (unchanged and stored as it is: Stored),
// and reports whether it did; else d is to be queued to Run. The caller
// may use it only for the documents that come before the first one it
// queues, whose accounting (counters, file_error events for files still
// failing) the writer would do first, in the same order: a no-op run then
// never passes its documents through the extract stage's goroutines.
func (x *Extractor) Keep(d record.Document) bool {
	if d.Change != record.ChangeUnchanged || x.Force || x.Stored == nil || x.InCommit != nil || !x.Stored(d) {
		return false
	}
	x.count(&result{act: actKeep, doc: d})
	return true
}

// init compiles the exclusion and redaction rules and the deferred types.
func (x *Extractor) init() error {
	ex, err := exclude.New(x.Config.Security.PathExcludes, x.Config.Security.SecretPatterns)
	if err != nil {
		return err
	}
	x.exclude = ex
	if x.redact, err = Redactor(x.Config); err != nil {
		return err
	}
	x.deferred = deferredTypes(x.Config, x.Media)
	return nil
}

func (x *Extractor) failed(r result, status string, code errcode.Code, reason string) result {
	r.act = actRecord
	r.doc.Status, r.doc.Code, r.doc.Reason = status, string(code), reason
	return r
}

func (x *Extractor) root(dir string) (*rootfs.Root, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if r, ok := x.roots[dir]; ok {
		return r, nil
	}
	r, err := rootfs.Open(dir)
	if err != nil {
		return nil, err
	}
	if x.roots == nil {
		x.roots = map[string]*rootfs.Root{}
	}
	x.roots[dir] = r
	return r, nil
}

// Batching: commit after this many documents or this much time.
const (
	batchDocs  = 1024
	batchDelay = 500 * time.Millisecond
)

// write applies results in input order, batching them into transactions.
func (x *Extractor) write(ctx context.Context, results <-chan result) error {
	// Results that came before their turn, by seq - next (a slow document
	// may hold back any number of later ones).
	var early []result
	var have []bool
	next := 0
	var batch []result
	flushAt := time.Now().Add(batchDelay)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := x.commit(ctx, batch)
		batch = batch[:0]
		flushAt = time.Now().Add(batchDelay)
		return err
	}
	// due reports whether the batch is to be committed after r: full, or
	// past its delay (the clock is read after a document that was
	// extracted, and every 64 unchanged ones, which cost nothing to hold).
	due := func(r result) bool {
		return len(batch) >= batchDocs || (r.act != actKeep || len(batch)%64 == 0) && time.Now().After(flushAt)
	}
	for r := range results {
		if r.seq == next && len(early) == 0 {
			// In order (the common case).
			next++
			batch = append(batch, r)
		} else {
			i := r.seq - next
			for len(early) <= i {
				early, have = append(early, result{}), append(have, false)
			}
			early[i], have[i] = r, true
			for len(have) > 0 && have[0] {
				batch = append(batch, early[0])
				early[0] = result{}
				early, have = early[1:], have[1:]
				next++
			}
		}
		if due(r) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// commit writes a batch in one transaction. If the batch fails for a reason
// other than the store being unavailable, each document is retried alone so
// one bad document is recorded as an error instead of failing the batch.
func (x *Extractor) commit(ctx context.Context, batch []result) error {
	if x.InCommit == nil && !slices.ContainsFunc(batch, func(r result) bool { return r.act != actKeep }) {
		x.account(batch, &Progress{}) // nothing to write
		return nil
	}
	var added []record.Chunk
	tally := &Progress{}
	err := x.Store.Update(ctx, func(tx *store.Tx) error {
		added, tally = added[:0], &Progress{}
		for i := range batch {
			c, err := x.apply(tx, &batch[i], tally)
			if err != nil {
				return fmt.Errorf("%s: %w", batch[i].doc.RelPath, err)
			}
			added = append(added, c...)
		}
		if x.InCommit != nil && len(batch) == x.applying {
			return x.InCommit(tx)
		}
		return nil
	})
	if err != nil {
		if len(batch) == 1 || ctx.Err() != nil || errcode.Of(err) == errcode.IndexLocked {
			return err
		}
		for i := range batch {
			if err := x.commit(ctx, batch[i:i+1]); err != nil {
				if e := x.recordFailure(ctx, batch[i], err); e != nil {
					return e
				}
			}
		}
		return nil
	}
	x.account(batch, tally)
	if x.Out != nil {
		for _, c := range added {
			if err := x.Out(c); err != nil {
				return err
			}
		}
	}
	if len(added) > 0 && x.Committed != nil {
		select {
		case x.Committed <- struct{}{}:
		default:
		}
	}
	return nil
}

// recordFailure stores a document whose write failed as an error.
func (x *Extractor) recordFailure(ctx context.Context, r result, cause error) error {
	r = x.failed(r, record.StatusError, errcode.ExtractFailed, "could not store extracted content: "+cause.Error())
	return x.commit(ctx, []result{r})
}

// apply writes one result inside tx, with an archive's members, and
// returns the chunks it added.
func (x *Extractor) apply(tx *store.Tx, r *result, p *Progress) ([]record.Chunk, error) {
	added, err := x.applyDoc(tx, r, p)
	if err != nil || !r.archive {
		return added, err
	}
	seen := make(map[string]bool, len(r.members))
	for i := range r.members {
		m := &r.members[i]
		seen[m.doc.RelPath] = true
		c, err := x.applyDoc(tx, m, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.doc.RelPath, err)
		}
		added = append(added, c...)
	}
	live, err := tx.LiveMembers(r.doc.RelPath)
	if err != nil {
		return nil, err
	}
	for _, path := range live {
		if !seen[path] {
			n, err := tx.TombstoneDocument(path)
			if err != nil {
				return nil, err
			}
			p.ChunksRemoved.Add(int64(n))
		}
	}
	return added, nil
}

// annotationReps are made on demand (dir2mcp.annotate) and survive a
// re-extraction of unchanged content.
var annotationReps = []string{record.RepAnnotationJSON, record.RepAnnotationText}

// applyDoc writes one document.
func (x *Extractor) applyDoc(tx *store.Tx, r *result, p *Progress) ([]record.Chunk, error) {
	d := r.doc
	switch r.act {
	case actNone, actKeep:
		return nil, nil
	case actTombstone:
		n, err := tx.TombstoneDocument(d.RelPath)
		if err != nil {
			return nil, err
		}
		m, err := tx.TombstoneMembers(d.RelPath)
		p.ChunksRemoved.Add(int64(n + m))
		return nil, err
	case actTouch:
		_, err := tx.TouchDocument(d)
		return nil, err
	case actRecord:
		id, err := tx.UpsertDocument(d, "")
		if err != nil {
			return nil, err
		}
		if err := tx.SetDocumentAbout(id, "", nil); err != nil {
			return nil, err
		}
		n, err := tx.ClearDocumentContent(id)
		if err != nil {
			return nil, err
		}
		if !r.archive { // an archive now skipped: its members go too
			m, err := tx.TombstoneMembers(d.RelPath)
			if err != nil {
				return nil, err
			}
			n += m
		}
		p.ChunksRemoved.Add(int64(n))
		return nil, nil
	}
	old, err := tx.DocumentTitle(d.RelPath)
	if err != nil {
		return nil, err
	}
	id, err := tx.UpsertDocument(d, r.title)
	if err != nil {
		return nil, err
	}
	if err := tx.SetDocumentAbout(id, r.about.Description, r.about.Tags); err != nil {
		return nil, err
	}
	keep := []string{r.rep.Type}
	if d.Change == record.ChangeUnchanged {
		keep = append(keep, annotationReps...)
	}
	n, err := tx.DropRepresentations(id, keep...)
	if err != nil {
		return nil, err
	}
	p.ChunksRemoved.Add(int64(n))
	if r.rep.Type == "" {
		return nil, nil // an archive: its members carry the content
	}
	res, err := tx.ReplaceRepresentation(store.DocRef{
		DocID: id, RelPath: d.RelPath, Title: r.title, DocType: d.DocType, Lang: d.Lang,
		TitleChanged: old != r.title,
	}, r.rep, r.pieces)
	if err != nil {
		return nil, err
	}
	if !res.Unchanged {
		p.Reps.Add(1)
	}
	p.ChunksKept.Add(int64(res.Kept))
	p.ChunksRemoved.Add(int64(res.Removed))
	p.ChunksAdded.Add(int64(len(res.Added)))
	return res.Added, nil
}

// account adds a committed batch to the run's progress and reports
// per-document errors.
func (x *Extractor) account(batch []result, t *Progress) {
	for i := range batch {
		x.count(&batch[i])
	}
	p := x.Progress
	p.Reps.Add(t.Reps.Load())
	p.ChunksAdded.Add(t.ChunksAdded.Load())
	p.ChunksKept.Add(t.ChunksKept.Load())
	p.ChunksRemoved.Add(t.ChunksRemoved.Load())
}

// count adds one document (and an archive's members) to the counters.
func (x *Extractor) count(r *result) {
	p := x.Progress
	if r.act == actNone {
		return
	}
	p.Scanned.Add(1)
	switch r.act {
	case actTombstone:
		p.Deleted.Add(1)
	case actTouch, actKeep:
		switch r.doc.Status {
		case record.StatusError: // still failing: reported on every run
			x.fileError(r.doc.RelPath, r.doc.Code, r.doc.Reason)
		case record.StatusSkipped:
			p.Skipped.Add(1)
		default:
			p.Unchanged.Add(1)
		}
	case actReplace:
		p.Indexed.Add(1)
	case actRecord:
		if r.doc.Status == record.StatusError {
			x.fileError(r.doc.RelPath, r.doc.Code, r.doc.Reason)
		} else {
			p.Skipped.Add(1)
		}
	}
	for _, n := range r.notes {
		x.fileError(n.relPath, string(n.err.Code), n.err.Message)
	}
	for i := range r.members {
		x.count(&r.members[i])
	}
}

func (x *Extractor) fileError(relPath, code, msg string) {
	x.Progress.Errors.Add(1)
	x.Events.Emit(events.Warn, record.EvFileError, map[string]any{"rel_path": relPath, "code": code, "message": msg})
}
