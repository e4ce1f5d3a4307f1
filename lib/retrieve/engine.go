package retrieve

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// Engine answers searches over one state directory. It is safe for
// concurrent use; it sees new chunks and vector files as indexing writes them.
type Engine struct {
	Store *store.Store
	// Vectors holds the vector file of each index kind (text, code).
	Vectors map[string]*vector.Reloader
	// Embedders embed queries for each index kind; a kind whose embedder ID
	// differs from its vector file's model is searched lexically only.
	Embedders map[string]embed.Embedder
	Tuning    config.SearchConfig
	// Oversample multiplies vector candidates before tombstone and filter
	// removal (SPEC §6.3); 0 = 5.
	Oversample int
	// Complete reports whether indexing has finished (nil = true).
	Complete func() bool
}

// Hit is one search result (SPEC §15.1.2).
type Hit struct {
	ChunkID int64       `json:"chunk_id"`
	RelPath string      `json:"rel_path"`
	DocType string      `json:"doc_type"`
	RepType string      `json:"rep_type"`
	Score   float64     `json:"score"`
	Snippet string      `json:"snippet"`
	Span    record.Span `json:"span"`
}

// Result is a search's answer.
type Result struct {
	Query            string `json:"query"`
	K                int    `json:"k"`
	IndexUsed        string `json:"index_used"`
	Hits             []Hit  `json:"hits"`
	IndexingComplete bool   `json:"indexing_complete"`
	// Timing and channel sizes, for logs and benchmarks (not part of the tool output).
	Took          time.Duration `json:"-"`
	LexicalHits   int           `json:"-"`
	VectorHits    int           `json:"-"`
	VectorSkipped []string      `json:"-"` // kinds searched lexically only, and why
}

// candidate is a chunk under consideration with its per-channel ranks.
type candidate struct {
	id      int64
	meta    store.ChunkMeta
	lexRank int // 1-based; 0 = absent
	vecRank int
	vecSim  float32
	exact   bool // contains an identifier-like query token verbatim
	fused   float64
}

// Search runs req and returns up to req.K hits, best first.
func (e *Engine) Search(ctx context.Context, req Request) (Result, error) {
	start := time.Now()
	glob, err := req.normalize()
	if err != nil {
		return Result{}, err
	}
	route := chooseRoute(req)
	res := Result{Query: req.Query, K: req.K, IndexUsed: route.used, Hits: []Hit{}}
	filter := store.ChunkFilter{PathPrefix: req.PathPrefix, DocTypes: req.DocTypes}
	if glob != nil {
		filter.Match = func(p string) bool { return glob.Match(p, false) }
	}
	if len(route.kinds) == 1 {
		filter.IndexKinds = route.kinds
	}
	depth := e.depth(req.K)
	cands := map[int64]*candidate{}
	get := func(id int64) *candidate {
		c := cands[id]
		if c == nil {
			c = &candidate{id: id}
			cands[id] = c
		}
		return c
	}

	if req.Mode != ModeVector {
		lex, err := e.Store.LexicalSearch(ctx, lexical.Match(req.Query), filter, store.DefaultFTSWeights, depth)
		if err != nil {
			return Result{}, err
		}
		for i, s := range lex {
			get(s.ChunkID).lexRank = i + 1
		}
		res.LexicalHits = len(lex)
	}
	if req.Mode != ModeLexical {
		vec, skipped, err := e.vectorSearch(ctx, req.Query, route.kinds, filter, depth)
		if err != nil {
			return Result{}, err
		}
		res.VectorSkipped = skipped
		for i, v := range vec {
			c := get(v.id)
			c.vecRank, c.vecSim, c.meta = i+1, v.sim, v.meta
		}
		res.VectorHits = len(vec)
	}
	if err := e.fillMeta(ctx, cands); err != nil {
		return Result{}, err
	}
	codeToks := lexical.CodeTokens(req.Query)
	list := make([]*candidate, 0, len(cands))
	for _, c := range cands {
		if c.meta.ChunkID == 0 {
			continue // deleted since the channel ran
		}
		c.exact = containsAny(c.meta.Text, codeToks)
		list = append(list, c)
	}
	e.fuse(list, route, req.Mode)
	terms := lexical.Terms(req.Query)
	perFile := map[string]int{}
	maxPer := e.Tuning.MaxPerFile
	for _, c := range list {
		if maxPer > 0 && perFile[c.meta.RelPath] >= maxPer {
			continue
		}
		perFile[c.meta.RelPath]++
		snippet, span := focus(c.meta.Text, c.meta.Span, terms)
		res.Hits = append(res.Hits, Hit{
			ChunkID: c.id, RelPath: c.meta.RelPath, DocType: c.meta.DocType, RepType: c.meta.RepType,
			Score: math.Round(c.fused*1e4) / 1e4, Snippet: snippet, Span: span,
		})
		if len(res.Hits) == req.K {
			break
		}
	}
	res.IndexingComplete = e.Complete == nil || e.Complete()
	res.Took = time.Since(start)
	return res, nil
}

// depth is the number of candidates each channel contributes.
func (e *Engine) depth(k int) int {
	d := e.Tuning.Candidates
	if d <= 0 {
		d = 100
	}
	return max(d, 4*k)
}

// fillMeta loads chunk metadata for candidates that do not have it yet.
func (e *Engine) fillMeta(ctx context.Context, cands map[int64]*candidate) error {
	var ids []int64
	for id, c := range cands {
		if c.meta.ChunkID == 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	metas, err := e.Store.ChunkMetas(ctx, ids)
	if err != nil {
		return err
	}
	for id, m := range metas {
		cands[id].meta = m
	}
	return nil
}

// fuse scores candidates by weighted reciprocal rank fusion and sorts them.
// An exact occurrence of an identifier-like query token counts as a third
// channel, so a weak vector neighbour cannot outrank a chunk that literally
// contains the rare identifier the user typed.
func (e *Engine) fuse(list []*candidate, route route, mode string) {
	k := e.Tuning.RRFK
	if k <= 0 {
		k = 60
	}
	wl, wv := e.Tuning.LexicalWeight, e.Tuning.VectorWeight
	if wl <= 0 {
		wl = 1
	}
	if wv <= 0 {
		wv = 1
	}
	for _, c := range list {
		s := 0.0
		if c.lexRank > 0 {
			s += wl / (k + float64(c.lexRank))
		}
		if c.vecRank > 0 {
			s += wv / (k + float64(c.vecRank))
		}
		if c.exact && mode == ModeHybrid {
			s += wl / (k + 1)
		}
		s *= route.kindWeight(c.meta.IndexKind)
		c.fused = s
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].fused != list[j].fused {
			return list[i].fused > list[j].fused
		}
		if list[i].lexRank != list[j].lexRank {
			return rankLess(list[i].lexRank, list[j].lexRank)
		}
		return list[i].id < list[j].id
	})
}

func rankLess(a, b int) bool {
	if a == 0 {
		return false
	}
	if b == 0 {
		return true
	}
	return a < b
}
