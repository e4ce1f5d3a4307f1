package retrieve

import (
	"context"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/store"
)

// maxCachedRefs bounds the ref cache (about 100 bytes an entry).
const maxCachedRefs = 400_000

// refCache remembers chunk refs for one store generation: a ref changes
// only when the index does, and repeated searches on a quiet index touch
// mostly the same chunks. Deleted chunks are remembered as absent.
type refCache struct {
	mu   sync.Mutex
	gen  store.Generation
	refs map[int64]cachedRef
}

type cachedRef struct {
	ref  store.ChunkRef
	live bool
}

// refs returns the refs of the live chunks among ids, reading from the
// store only what the cache lacks for generation gen (the store's, read
// once per search).
func (e *Engine) refs(ctx context.Context, gen store.Generation, ids []int64) (map[int64]store.ChunkRef, error) {
	c := &e.refCache
	out := make(map[int64]store.ChunkRef, len(ids))
	var missing []int64
	c.mu.Lock()
	if c.gen != gen || c.refs == nil || len(c.refs) > maxCachedRefs {
		c.gen, c.refs = gen, make(map[int64]cachedRef, len(ids))
	}
	for _, id := range ids {
		if r, ok := c.refs[id]; ok {
			if r.live {
				out[id] = r.ref
			}
		} else {
			missing = append(missing, id)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	fresh, err := e.Store.ChunkRefs(ctx, missing)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	keep := c.gen == gen
	for _, id := range missing {
		r, live := fresh[id]
		if live {
			out[id] = r
		}
		if keep {
			c.refs[id] = cachedRef{r, live}
		}
	}
	c.mu.Unlock()
	return out, nil
}
