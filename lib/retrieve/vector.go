package retrieve

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

type vecHit struct {
	id  int64
	sim float32
	ref store.ChunkRef
}

// vectorSearch returns up to depth live, filter-passing chunks nearest to
// the query across the given kinds, best first, and the query vector used
// for each kind. Kinds whose vector file is missing or made by another
// model than the query embedder are skipped and reported.
func (e *Engine) vectorSearch(ctx context.Context, gen store.Generation, query string, kinds []string, f store.ChunkFilter, depth, k int) ([]vecHit, []string, map[string][]float32, error) {
	var skipped []string
	byKind := map[string][]float32{}
	models := map[string]bool{}
	type kindSearch struct {
		kind string
		emb  embed.Embedder
		ix   *vector.Snapshot
		q    []float32
		hits []vecHit
		err  error
	}
	var todo []*kindSearch
	for _, kind := range kinds {
		rl := e.Vectors[kind]
		emb := e.Embedders[kind]
		if rl == nil || emb == nil {
			skipped = append(skipped, kind+": no vector index")
			continue
		}
		ix := rl.Current()
		if ix == nil || ix.Len() == 0 {
			skipped = append(skipped, kind+": vector index empty or loading")
			continue
		}
		if ix.Model() != emb.ID() {
			skipped = append(skipped, fmt.Sprintf("%s: vectors were made by %s, queries by %s (re-embedding pending)", kind, ix.Model(), emb.ID()))
			continue
		}
		todo = append(todo, &kindSearch{kind: kind, emb: emb, ix: ix})
	}
	// The kinds are searched side by side: each is a scan of its own
	// vectors and a lookup of its candidates' refs.
	var wg sync.WaitGroup
	for _, t := range todo {
		wg.Go(func() {
			// Embedded per kind even when the kinds share an embedder: a
			// code query is prepared differently (identifiers split, as in
			// code).
			vs, err := t.emb.Embed(ctx, []embed.Input{{Text: query, Kind: t.kind, Query: true}})
			if err != nil {
				t.err = err
				return
			}
			t.q = vs[0]
			t.hits, t.err = e.searchKind(ctx, gen, t.ix, t.q, f, depth, k)
		})
	}
	wg.Wait()
	for _, t := range todo {
		if t.err != nil {
			return nil, nil, nil, t.err
		}
		models[t.emb.ID()] = true
		byKind[t.kind] = t.q
	}
	var all []vecHit
	for _, t := range todo {
		if len(models) > 1 {
			// Different models: similarities are not comparable; rescale
			// each kind's scores to [0,1] before merging (SPEC §9.1).
			normalize(t.hits)
		}
		all = append(all, t.hits...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].sim != all[j].sim {
			return all[i].sim > all[j].sim
		}
		return all[i].id < all[j].id
	})
	if len(all) > depth {
		all = all[:depth]
	}
	if len(models) > 1 {
		byKind = nil // rescaled scores: a raw cosine would not compare
	}
	return all, skipped, byKind, nil
}

// fillCosines gives every candidate the vector channel did not return (a
// BM25-only find) its cosine with the query, so fusion weighs it on the
// same scale as the vector hits instead of as if it were unrelated. A
// candidate without a vector (pending embedding) keeps none.
func (e *Engine) fillCosines(list []*candidate, queryVecs map[string][]float32) {
	for _, c := range list {
		if c.vecRank > 0 {
			continue
		}
		q, rl := queryVecs[c.ref.IndexKind], e.Vectors[c.ref.IndexKind]
		if q == nil || rl == nil {
			continue
		}
		if sim, ok := rl.Current().Dot(c.id, q); ok {
			c.vecSim, c.filled = sim, true
		}
	}
}

// searchKind runs the vector search (int8 candidates re-scored exactly, so
// scores are exact cosines), drops deleted and filtered-out chunks,
// and widens the search until depth hits survive or the index is exhausted.
// It asks for k×oversample extra candidates up front (SPEC §6.3), and
// oversamples the whole depth when filters may reject many.
func (e *Engine) searchKind(ctx context.Context, gen store.Generation, ix *vector.Snapshot, q []float32, f store.ChunkFilter, depth, k int) ([]vecHit, error) {
	over := e.Oversample
	if over <= 0 {
		over = 5
	}
	want := depth + k*over
	if !f.Empty() {
		want = depth * over
	}
	for {
		raw, err := ix.Search(q, want, nil)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(raw))
		for i, h := range raw {
			ids[i] = h.Label
		}
		out := make([]vecHit, 0, depth)
		err = e.passing(ctx, gen, ids, f, depth, func(i int, r store.ChunkRef) {
			out = append(out, vecHit{id: raw[i].Label, sim: raw[i].Score, ref: r})
		})
		if err != nil {
			return nil, err
		}
		if len(out) == depth || len(raw) < want || want >= ix.Len() {
			return out, nil
		}
		want *= 4
	}
}

func normalize(hs []vecHit) {
	if len(hs) == 0 {
		return
	}
	lo, hi := hs[len(hs)-1].sim, hs[0].sim
	for i := range hs {
		if hi > lo {
			hs[i].sim = (hs[i].sim - lo) / (hi - lo)
		} else {
			hs[i].sim = 1
		}
	}
}
