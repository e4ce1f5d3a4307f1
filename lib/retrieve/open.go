package retrieve

import (
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
// only when searching) and the search tuning from cfg. Close releases the reloaders.
func Open(st *store.Store, dir state.Dir, cfg *config.Config, embs map[string]embed.Embedder, poll time.Duration) *Engine {
	vecs := map[string]*vector.Reloader{}
	for kind := range embs {
		vecs[kind] = vector.NewReloader(dir.Join(vector.FileName(kind)), vector.ReloaderOptions{PollInterval: poll})
	}
	kw := postings.NewReloader(dir.Path, 500*time.Millisecond, poll > 0)
	return &Engine{Store: st, Vectors: vecs, Keywords: kw, Embedders: embs, Tuning: cfg.Search, Oversample: cfg.RAG.OversampleFactor}
}

// WaitLoaded blocks until every vector file has been looked at once
// (loaded, found missing or failed), for one-shot commands.
func (e *Engine) WaitLoaded() {
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
