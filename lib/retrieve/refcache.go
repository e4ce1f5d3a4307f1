package retrieve

import (
	"context"
	"errors"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/store"
)

// maxCachedRefs bounds the refs read search by search (about 100 bytes an
// entry).
const maxCachedRefs = 400_000

// refCache remembers chunk refs for one store generation: a ref changes
// only when the index does, and repeated searches on a quiet index touch
// mostly the same chunks. Deleted chunks are remembered as absent. With a
// table (WarmRefs) every ref of the generation is at hand.
type refCache struct {
	mu    sync.Mutex
	gen   store.Generation
	refs  map[int64]cachedRef // read search by search; nil with a table
	table *store.RefTable     // every live chunk of gen, or nil
}

// empty reports whether the cache holds no generation yet.
func (c *refCache) empty() bool { return c.refs == nil && c.table == nil }

type cachedRef struct {
	ref  store.ChunkRef
	live bool
}

// refs returns the refs of the live chunks among ids, reading from the
// store only what the cache lacks for generation gen (the store's, read
// once per search). A search of an older generation than the cache's (it
// began before a commit) reads the store and leaves the cache as it is.
func (e *Engine) refs(ctx context.Context, gen store.Generation, ids []int64) (map[int64]store.ChunkRef, error) {
	c := &e.refCache
	out := make(map[int64]store.ChunkRef, len(ids))
	c.mu.Lock()
	switch {
	case !c.empty() && gen < c.gen:
		c.mu.Unlock()
		return e.Store.ChunkRefs(ctx, ids)
	case c.empty() || gen > c.gen || len(c.refs) > maxCachedRefs:
		c.gen, c.refs, c.table = gen, make(map[int64]cachedRef, len(ids)), nil
	}
	if t := c.table; t != nil {
		c.mu.Unlock()
		for _, id := range ids {
			if r, ok := t.Ref(id); ok {
				out[id] = r
			}
		}
		return out, nil
	}
	var missing []int64
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
	keep := c.gen == gen && c.table == nil
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

// WarmRefs reads every live chunk's ref at once (Store.RefTable) for the
// searches of its generation, so the searches after a restart or an index
// run find their candidates' refs at hand instead of reading each
// candidate's chunk row. It reads nothing more when the cache holds the
// table of the store's generation already (an index run that changed
// nothing); a cache already at a newer generation is kept; an index that
// does not fit a table (store.ErrNoRefTable) is left to fill the cache as
// searches go.
func (e *Engine) WarmRefs(ctx context.Context) error {
	gen, err := e.Store.Generation(ctx)
	if err != nil {
		return err
	}
	c := &e.refCache
	c.mu.Lock()
	current := c.table != nil && c.gen == gen
	c.mu.Unlock()
	if current {
		return nil
	}
	t, err := e.Store.RefTable(ctx)
	if errors.Is(err, store.ErrNoRefTable) {
		return nil
	}
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.empty() && c.gen > t.Generation() {
		return nil
	}
	c.gen, c.refs, c.table = t.Generation(), nil, t
	return nil
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
