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

// passing reads the refs of ids (chunk ids, best first) and calls
// keep(i, ref) for each ids[i] whose chunk is live and passes f, in order,
// stopping after limit calls. With f empty nearly every chunk survives,
// so refs are read in batches of as many as are still wanted (at least
// minRefBatch): each ref not cached is a read of a random page of the
// store. With a filter, all refs are read at once.
func (e *Engine) passing(ctx context.Context, gen store.Generation, ids []int64, f store.ChunkFilter, limit int, keep func(i int, r store.ChunkRef)) error {
	kept := 0
	for lo := 0; lo < len(ids) && kept < limit; {
		hi := len(ids)
		if f.Empty() {
			hi = min(hi, lo+max(limit-kept, minRefBatch))
		}
		refs, err := e.refs(ctx, gen, ids[lo:hi])
		if err != nil {
			return err
		}
		for i := lo; i < hi && kept < limit; i++ {
			if r, ok := refs[ids[i]]; ok && f.Passes(r) {
				keep(i, r)
				kept++
			}
		}
		lo = hi
	}
	return nil
}

// minRefBatch is the least number of refs passing reads at a time.
const minRefBatch = 16
