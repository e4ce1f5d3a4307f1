package indexer

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// Embedding is the embed stage: it turns pending chunks into vectors and
// keeps one vector file per index kind in the state directory.
//
// Vectors are made durable (a new segment, then the manifest, see
// vector.Writer) before the chunks are marked embedded in the store, so a
// crash at any point leaves chunks pending, never marked embedded without a
// vector; the next run re-embeds them. Memory holds only the vectors not yet
// flushed, and a flush writes only those.
type Embedding struct {
	Store     *store.Store
	Dir       state.Dir
	Embedders map[string]embed.Embedder // by index kind
	Progress  *Progress
	Events    *events.Emitter
	// BatchSize is the number of inputs per Embed call (default 256).
	BatchSize int
	// Concurrency is the number of Embed calls in flight (default GOMAXPROCS).
	Concurrency int
	// MinFlush is the shortest interval between vector flushes (default 2s).
	MinFlush time.Duration
	// MaxPending caps the bytes of embedded vectors a kind holds in memory
	// until its next flush (default DefaultMaxPending): reaching it flushes
	// whatever the interval, so memory is bounded by this, not by vector
	// width times flush interval.
	MaxPending int64
	// Flushed, if set, is called after the vector index of kind changed on disk
	// (an in-process server refreshes its snapshot at once).
	Flushed func(kind string)

	kinds map[string]*kindState
}

type kindState struct {
	kind string
	emb  embed.Embedder
	// ix is nil until the vector files are needed when Open found them
	// verified (see verified); writer opens them.
	ix *vector.Writer
	// sealed is the files' seal Open verified ("" if not verified); while
	// ix is nil the files are as they were.
	sealed    string
	unflushed []int64
	lastFlush time.Time
	flushCost time.Duration
	cursor    int64
}

// Open loads the vector files and reconciles them with the store: a changed
// model (or dimension) resets every chunk of that kind to pending with a
// notice, chunks marked embedded whose vectors are missing become pending,
// and vectors of chunks that no longer exist are dropped.
//
// When neither the store's content (its generation) nor the vector files
// (manifest bytes, segment names, sizes and times) changed since a run
// ended with the two reconciled (Seal), and the model is the same, there
// is nothing to reconcile: the files are opened, and their checksums
// verified, only when the run has vectors to add or drop. A no-op run then
// reads neither the vectors (1.1 GB on the Linux source) nor every
// embedded chunk id (546k).
func (e *Embedding) Open(ctx context.Context) error {
	if e.Progress == nil {
		e.Progress = &Progress{}
	}
	e.kinds = map[string]*kindState{}
	for _, kind := range []string{record.KindText, record.KindCode} {
		emb := e.Embedders[kind]
		if emb == nil {
			continue
		}
		ks, err := e.openKind(ctx, kind, emb)
		if err != nil {
			return err
		}
		e.kinds[kind] = ks
	}
	return nil
}

// Run embeds pending chunks until none remain. When more is non-nil it then
// waits for signals on more (new chunks were committed) and repeats, until
// more is closed; the final state is always flushed to disk.
func (e *Embedding) Run(ctx context.Context, more <-chan struct{}) error {
	if e.kinds == nil {
		if err := e.Open(ctx); err != nil {
			return err
		}
	}
	open := more != nil
	for {
		if err := e.drain(ctx); err != nil {
			return err
		}
		if !open {
			return nil
		}
		select {
		case <-ctx.Done():
			return e.flushAll(context.WithoutCancel(ctx))
		case _, ok := <-more:
			if !ok {
				open = false // drain once more, then finish
			}
		case <-time.After(time.Second):
		}
	}
}

// drain embeds every pending chunk of every kind, then flushes.
func (e *Embedding) drain(ctx context.Context) error {
	for {
		did := false
		for _, kind := range []string{record.KindCode, record.KindText} {
			ks := e.kinds[kind]
			if ks == nil {
				continue
			}
			batch, err := e.Store.PendingChunks(ctx, kind, ks.cursor, e.fetchSize())
			if err != nil {
				return err
			}
			if len(batch) == 0 {
				continue
			}
			if ks.ix == nil {
				// Open left the files closed: reconcile them now, which
				// may queue chunks whose vectors are missing, and fetch
				// again so this pass embeds those too.
				if _, err := e.writer(ctx, ks); err != nil {
					return err
				}
				if batch, err = e.Store.PendingChunks(ctx, kind, ks.cursor, e.fetchSize()); err != nil {
					return err
				}
			}
			did = true
			ks.cursor = batch[len(batch)-1].ChunkID
			inputs := make([]embed.Input, len(batch))
			ids := make([]int64, len(batch))
			for i, p := range batch {
				ids[i] = p.ChunkID
				inputs[i] = embed.Input{Text: embedText(p.Context, p.Text), Kind: p.IndexKind, Path: p.RelPath, Lang: p.Lang}
			}
			if err := e.embedInto(ctx, ks, ids, inputs); err != nil {
				return err
			}
			if err := e.maybeFlush(ctx, ks); err != nil {
				return err
			}
		}
		if !did {
			for _, ks := range e.kinds {
				ks.cursor = 0
			}
			return e.flushAll(ctx)
		}
	}
}

// RunRecords embeds the chunks given as records (the stdin mode of
// dir2mcp-embed). Records of chunks no longer live in the store are skipped.
func (e *Embedding) RunRecords(ctx context.Context, in <-chan record.Chunk) error {
	if e.kinds == nil {
		if err := e.Open(ctx); err != nil {
			return err
		}
	}
	var buf []record.Chunk
	process := func() error {
		if len(buf) == 0 {
			return nil
		}
		ids := make([]int64, len(buf))
		for i, c := range buf {
			ids[i] = c.ChunkID
		}
		live, err := e.Store.ChunkMetas(ctx, ids)
		if err != nil {
			return err
		}
		byKind := map[string][]record.Chunk{}
		for _, c := range buf {
			if _, ok := live[c.ChunkID]; ok {
				byKind[c.IndexKind] = append(byKind[c.IndexKind], c)
			}
		}
		buf = buf[:0]
		for kind, cs := range byKind {
			ks := e.kinds[kind]
			if ks == nil {
				return errcode.New(errcode.InvalidField, "chunk record has unknown index_kind %q", kind)
			}
			ids := make([]int64, len(cs))
			inputs := make([]embed.Input, len(cs))
			for i, c := range cs {
				ids[i] = c.ChunkID
				inputs[i] = embed.Input{Text: embedText(c.Context, c.Text), Kind: kind, Path: c.RelPath, Lang: c.Lang}
			}
			if err := e.embedInto(ctx, ks, ids, inputs); err != nil {
				return err
			}
			if err := e.maybeFlush(ctx, ks); err != nil {
				return err
			}
		}
		return nil
	}
	for c := range in {
		buf = append(buf, c)
		if len(buf) >= e.fetchSize() {
			if err := process(); err != nil {
				return err
			}
		}
	}
	if err := process(); err != nil {
		return err
	}
	return e.flushAll(ctx)
}

func (e *Embedding) batchSize() int {
	if e.BatchSize > 0 {
		return e.BatchSize
	}
	return 256
}

func (e *Embedding) concurrency() int {
	if e.Concurrency > 0 {
		return e.Concurrency
	}
	return runtime.GOMAXPROCS(0)
}

func (e *Embedding) fetchSize() int { return e.batchSize() * e.concurrency() * 2 }

// embedInto embeds inputs in parallel batches and adds the vectors to ks.
// A batch that fails marks its chunks as embedding errors and indexing goes on.
func (e *Embedding) embedInto(ctx context.Context, ks *kindState, ids []int64, inputs []embed.Input) error {
	// The files are reconciled (if Open left them closed) before anything
	// is added to them.
	ix, err := e.writer(ctx, ks)
	if err != nil {
		return err
	}
	bs := e.batchSize()
	type out struct {
		lo   int
		vecs [][]float32
		err  error
	}
	n := (len(inputs) + bs - 1) / bs
	outs := make([]out, n)
	sem := make(chan struct{}, e.concurrency())
	var wg sync.WaitGroup
	for b := 0; b < n; b++ {
		lo, hi := b*bs, min((b+1)*bs, len(inputs))
		wg.Add(1)
		sem <- struct{}{}
		go func(b, lo, hi int) {
			defer wg.Done()
			defer func() { <-sem }()
			vecs, err := ks.emb.Embed(ctx, inputs[lo:hi])
			if err == nil && len(vecs) != hi-lo {
				err = fmt.Errorf("embedder %s returned %d vectors for %d inputs", ks.emb.ID(), len(vecs), hi-lo)
			}
			outs[b] = out{lo, vecs, err}
		}(b, lo, hi)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var failed []int64
	var failMsg string
	for _, o := range outs {
		if o.err != nil {
			hi := min(o.lo+bs, len(ids))
			failed = append(failed, ids[o.lo:hi]...)
			failMsg = errcode.As(o.err).Error()
			continue
		}
		for i, v := range o.vecs {
			if err := ix.Upsert(ids[o.lo+i], v); err != nil {
				return errcode.Wrap(errcode.EmbedFailed, err, "embedder %s: %v", ks.emb.ID(), err)
			}
			ks.unflushed = append(ks.unflushed, ids[o.lo+i])
		}
	}
	if len(failed) > 0 {
		e.Progress.EmbedErrors.Add(int64(len(failed)))
		e.Events.Emit(events.Warn, record.EvFileError, map[string]any{
			"code": string(errcode.EmbedFailed), "message": fmt.Sprintf("embedding %d %s chunks failed: %s", len(failed), ks.kind, failMsg),
		})
		return e.Store.Update(ctx, func(tx *store.Tx) error {
			for _, id := range failed {
				if err := tx.MarkEmbedError(id, failMsg); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return nil
}

// embedText is what is embedded for a chunk: its context (the headings it
// sits under), then its text.
func embedText(context, text string) string {
	if context == "" {
		return text
	}
	return context + "\n\n" + text
}
