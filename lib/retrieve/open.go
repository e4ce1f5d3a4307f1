package retrieve

import (
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// Open returns an Engine over a state directory: one vector Reloader per
// embedder kind (checked every poll interval, 0 = only when searching) and
// the search tuning from cfg. Close releases the reloaders.
func Open(st *store.Store, dir state.Dir, cfg *config.Config, embs map[string]embed.Embedder, poll time.Duration) *Engine {
	vecs := map[string]*vector.Reloader{}
	for kind := range embs {
		vecs[kind] = vector.NewReloader(dir.Join(vector.FileName(kind)), vector.ReloaderOptions{PollInterval: poll})
	}
	return &Engine{Store: st, Vectors: vecs, Embedders: embs, Tuning: cfg.Search, Oversample: cfg.RAG.OversampleFactor}
}

// WaitLoaded blocks until every vector file has been looked at once
// (loaded, found missing or failed), for one-shot commands.
func (e *Engine) WaitLoaded() {
	for _, r := range e.Vectors {
		<-r.Ready()
	}
}

// Close stops the vector reloaders.
func (e *Engine) Close() {
	for _, r := range e.Vectors {
		r.Close()
	}
}
