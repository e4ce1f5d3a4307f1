package retrieve

import (
	"context"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// Open returns an Engine over a state directory: one vector Reloader per
// embedder kind and the keyword index's (checked every poll interval, 0 =
// only when searching) and the search tuning from cfg. Close releases the
// reloaders.
func Open(st *store.Store, dir state.Dir, cfg *config.Config, embs map[string]embed.Embedder, poll time.Duration) *Engine {
	return open(st, dir, cfg, embs, vector.ReloaderOptions{PollInterval: poll})
}

// OpenDeferred is Open with the vector files loaded only once StartVectors
// is called or a search needs them (that search, and any before the load
// completes, runs without the vector channel and says so, as during any
// load).
func OpenDeferred(st *store.Store, dir state.Dir, cfg *config.Config, embs map[string]embed.Embedder, poll time.Duration) *Engine {
	return open(st, dir, cfg, embs, vector.ReloaderOptions{PollInterval: poll, Deferred: true})
}

func open(st *store.Store, dir state.Dir, cfg *config.Config, embs map[string]embed.Embedder, opts vector.ReloaderOptions) *Engine {
	vecs := map[string]*vector.Reloader{}
	for kind := range embs {
		vecs[kind] = vector.NewReloader(dir.Join(vector.FileName(kind)), opts)
	}
	kw := postings.NewReloader(dir.Path, 500*time.Millisecond, opts.PollInterval > 0)
	return &Engine{Store: st, Vectors: vecs, Keywords: kw, Embedders: embs, Tuning: cfg.Search, Oversample: cfg.RAG.OversampleFactor}
}

// firstLoadWait bounds how long a search waits for the first load of the
// vector files (a server's are loaded after its first index run, or when a
// search asks).
const firstLoadWait = 3 * time.Second

// awaitVectors waits, up to firstLoadWait (or ctx), until the vector files
// of kinds have been looked at once, starting their load if it has not
// started: a search right after a restart gets the vector channel rather
// than a note that it is loading. Later loads (a new file) never wait.
func (e *Engine) awaitVectors(ctx context.Context, kinds []string) {
	var timeout <-chan time.Time
	for _, kind := range kinds {
		r := e.Vectors[kind]
		if r == nil {
			continue
		}
		select {
		case <-r.Ready():
			continue
		default:
		}
		r.Start()
		if timeout == nil {
			t := time.NewTimer(firstLoadWait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-r.Ready():
		case <-timeout:
			return
		case <-ctx.Done():
			return
		}
	}
}

// StartVectors starts loading the vector files of an OpenDeferred engine.
func (e *Engine) StartVectors() {
	for _, r := range e.Vectors {
		r.Start()
	}
}

// WaitLoaded blocks until every vector file has been looked at once
// (loaded, found missing or failed), for one-shot commands.
func (e *Engine) WaitLoaded() {
	e.StartVectors()
	for _, r := range e.Vectors {
		<-r.Ready()
	}
	if e.Keywords != nil {
		<-e.Keywords.Ready()
	}
}

// Close stops the reloaders.
func (e *Engine) Close() {
	for _, r := range e.Vectors {
		r.Close()
	}
	if e.Keywords != nil {
		e.Keywords.Close()
	}
}
