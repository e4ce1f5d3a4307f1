package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Extractor is the extract stage: it applies document records to the store,
// (re)building representations and chunks for new and modified documents and
// tombstoning deleted ones.
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
	// Workers extracting in parallel; 0 = GOMAXPROCS.
	Workers int

	roots map[string]*rootfs.Root
	mu    sync.Mutex
}

// action is what the writer must do for one document.
type action int

const (
	actReplace   action = iota // upsert document + representation
	actTouch                   // unchanged: refresh size/mtime
	actTombstone               // deleted
	actRecord                  // skipped/error: upsert document, drop content
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
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan job, workers*4)
	results := make(chan result, workers*4)
	deferred := deferredTypes(x.Config)

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
				r := x.prepare(j, deferred)
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

// prepare does the CPU work for one document: read, extract, chunk.
func (x *Extractor) prepare(j job, deferred map[string]deferral) result {
	d := j.doc
	r := result{seq: j.seq, doc: d}
	switch {
	case d.Change == record.ChangeDeleted:
		r.act = actTombstone
		return r
	case d.Status != record.StatusOK && d.Status != "":
		r.act = actRecord
		return r
	case d.Change == record.ChangeUnchanged && !x.Force:
		r.act = actTouch
		return r
	}
	if df, ok := deferred[d.DocType]; ok {
		return x.failed(r, record.StatusSkipped, df.Code, df.Reason)
	}
	if d.DocType == record.DocBinaryIgnored {
		return x.failed(r, record.StatusSkipped, errcode.BinarySkipped, "binary file")
	}
	root, err := x.root(d.Root)
	if err != nil {
		return x.failed(r, record.StatusError, errcode.Of(err), err.Error())
	}
	data, _, err := root.ReadFile(d.RelPath, 0)
	if err != nil {
		if errcode.Of(err) == errcode.FileNotFound {
			r.act = actTombstone // vanished between scan and extract
			return r
		}
		return x.failed(r, record.StatusError, errcode.Of(err), errcode.As(err).Message)
	}
	sum := sha256.Sum256(data)
	r.doc.ContentHash = "sha256:" + hex.EncodeToString(sum[:])
	r.doc.SizeBytes = int64(len(data))
	res, err := extract.RawText(data, d.DocType)
	if err != nil {
		return x.failed(r, record.StatusError, errcode.ExtractFailed, errcode.As(err).Message)
	}
	kind := record.KindText
	var pieces []chunk.Piece
	ch := x.Config.Chunking
	if d.DocType == record.DocCode {
		kind = record.KindCode
		pieces = chunk.Code(res.Text, chunk.CodeOptions{
			MaxLines: ch.Code.MaxLines, OverlapLines: orNone(ch.Code.OverlapLines),
		})
	} else {
		pieces = chunk.Text(res.Text, chunk.TextOptions{
			MaxChars: ch.MaxChars, OverlapChars: orNone(ch.OverlapChars), MinChars: orNone(ch.MinChars),
		})
	}
	if res.LineMap != nil {
		chunk.Remap(pieces, res.LineMap)
	}
	r.act = actReplace
	r.about = extract.Describe(res, data, d.DocType, d.RelPath)
	r.title = r.about.Title
	r.rep = store.RepInput{
		Type:     record.RepRawText,
		Hash:     repHash(d.DocType, ch, res.Text),
		MetaJSON: fmt.Sprintf(`{"encoding":%q,"extractor":%q}`, res.Encoding, extractorVersion),
	}
	r.pieces = make([]store.ChunkInput, len(pieces))
	for i, p := range pieces {
		r.pieces[i] = store.ChunkInput{
			Text: p.Text, TextHash: chunk.TextHash(p.Text), TokensEst: chunk.TokensEstimate(p.Text),
			IndexKind: kind, Span: p.Span,
		}
	}
	return r
}

// orNone maps a configured 0 ("none") to the chunk package's "none" (-1);
// the chunk package reads 0 as "default".
func orNone(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

func repHash(docType string, ch config.ChunkingConfig, text string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d/%d/%d/%d/%d\x00", extractorVersion, docType,
		ch.MaxChars, ch.OverlapChars, ch.MinChars, ch.Code.MaxLines, ch.Code.OverlapLines)
	io.WriteString(h, text)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
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
	batchDocs  = 256
	batchDelay = 150 * time.Millisecond
)

// write applies results in input order, batching them into transactions.
func (x *Extractor) write(ctx context.Context, results <-chan result) error {
	pending := map[int]result{}
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
	for r := range results {
		pending[r.seq] = r
		for {
			rr, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			batch = append(batch, rr)
		}
		if len(batch) >= batchDocs || time.Now().After(flushAt) {
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

// apply writes one result inside tx and returns the chunks it added.
func (x *Extractor) apply(tx *store.Tx, r *result, p *Progress) ([]record.Chunk, error) {
	d := r.doc
	switch r.act {
	case actTombstone:
		n, err := tx.TombstoneDocument(d.RelPath)
		p.ChunksRemoved.Add(int64(n))
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
		p.ChunksRemoved.Add(int64(n))
		return nil, err
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
	p := x.Progress
	for _, r := range batch {
		p.Scanned.Add(1)
		switch r.act {
		case actTombstone:
			p.Deleted.Add(1)
		case actTouch:
			p.Unchanged.Add(1)
		case actReplace:
			p.Indexed.Add(1)
		case actRecord:
			if r.doc.Status == record.StatusError {
				p.Errors.Add(1)
				x.Events.Emit(events.Warn, record.EvFileError, map[string]any{
					"rel_path": r.doc.RelPath, "code": r.doc.Code, "message": r.doc.Reason,
				})
			} else {
				p.Skipped.Add(1)
			}
		}
	}
	p.Reps.Add(t.Reps.Load())
	p.ChunksAdded.Add(t.ChunksAdded.Load())
	p.ChunksKept.Add(t.ChunksKept.Load())
	p.ChunksRemoved.Add(t.ChunksRemoved.Load())
}
