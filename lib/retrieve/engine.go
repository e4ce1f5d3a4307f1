package retrieve

import (
	"context"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// Engine answers searches over one state directory. It is safe for
// concurrent use; it sees new chunks and vector files as indexing writes them.
type Engine struct {
	Store *store.Store
	// Vectors holds the vector file of each index kind (text, code).
	Vectors map[string]*vector.Reloader
	// Keywords is the keyword index (nil: searches find nothing by
	// keyword).
	Keywords *postings.Reloader
	// Embedders embed queries for each index kind; a kind whose embedder ID
	// differs from its vector file's model is searched lexically only.
	Embedders map[string]embed.Embedder
	Tuning    config.SearchConfig
	// Oversample multiplies vector candidates before tombstone and filter
	// removal (SPEC §6.3); 0 = 5.
	Oversample int
	// Complete reports whether indexing has finished (nil = true).
	Complete func() bool

	refCache refCache
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
	// lines maps the snippet's lines to source lines (see SnippetSpan).
	lines srcmap.Map
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
	// Candidates are all fused candidates, best first, when Request.Explain.
	Candidates []Candidate `json:"-"`
	// PhraseCoverage is the lexical channel's phrase coverage (hybrid cc).
	PhraseCoverage float64 `json:"-"`
}

// Candidate is one fused candidate with its per-channel evidence.
type Candidate struct {
	ChunkID   int64       `json:"chunk_id"`
	RelPath   string      `json:"rel_path"`
	DocType   string      `json:"doc_type"`
	IndexKind string      `json:"index_kind"`
	Span      record.Span `json:"span"`
	LexRank   int         `json:"lex_rank,omitempty"` // 1-based; 0 = not found by BM25
	LexScore  float64     `json:"lex_score,omitempty"`
	VecRank   int         `json:"vec_rank,omitempty"`
	VecSim    float32     `json:"vec_sim,omitempty"`
	Exact     bool        `json:"exact,omitempty"`
	Defines   bool        `json:"defines,omitempty"`
	Fused     float64     `json:"fused"`
}

// candidate is a chunk under consideration with its per-channel ranks.
type candidate struct {
	id       int64
	ref      store.ChunkRef
	known    bool    // ref loaded and the chunk is live
	lexRank  int     // 1-based; 0 = absent
	lexScore float64 // BM25 (higher is better)
	vecRank  int
	vecSim   float32
	filled   bool // vecSim is the cosine of a candidate the vector channel did not return
	exact    bool // holds an identifier the query names verbatim
	defines  bool // defines (or is titled by) the one name the query is
	marked   bool // defines is set (markDefinitions ran on it)
	fused    float64
}

// Search runs req and returns up to req.K hits, best first.
//
// Channels return chunk ids only; lightweight refs (path, type, kind) are
// loaded for the candidates, and chunk text only for the hits returned.
func (e *Engine) Search(ctx context.Context, req Request) (Result, error) {
	start := time.Now()
	glob, err := req.normalize()
	if err != nil {
		return Result{}, err
	}
	q := lexical.Parse(req.Query)
	route := chooseRoute(req)
	res := Result{Query: req.Query, K: req.K, IndexUsed: route.used, Hits: []Hit{}}
	filter := store.ChunkFilter{PathPrefix: req.PathPrefix, Within: req.Within, DocTypes: req.DocTypes}
	if glob != nil {
		filter.Match = func(p string) bool { return glob.Match(p, false) }
	}
	if len(route.kinds) == 1 {
		filter.IndexKinds = route.kinds
	}
	depth := e.depth(req.K)
	gen, err := e.Store.Generation(ctx)
	if err != nil {
		return Result{}, err
	}
	cands := map[int64]*candidate{}
	get := func(id int64) *candidate {
		c := cands[id]
		if c == nil {
			c = &candidate{id: id}
			cands[id] = c
		}
		return c
	}

	// The vector channel runs beside the lexical ones (SIMD scan vs SQLite).
	var vec []vecHit
	var vecErr error
	var queryVecs map[string][]float32
	vecDone := make(chan struct{})
	if req.Mode != ModeLexical && req.In != InTitle { // vectors are of content, not titles
		go func() {
			defer close(vecDone)
			e.awaitVectors(ctx, route.kinds)
			vec, res.VectorSkipped, queryVecs, vecErr = e.vectorSearch(ctx, gen, req.Query, route.kinds, filter, depth, req.K)
		}()
	} else {
		close(vecDone)
	}
	var weight map[string]float64 // of query terms, for snippets
	kw := e.keywords()
	if req.Mode != ModeVector {
		var match lexical.Expr
		match, weight = e.lexicalMatch(kw, q.Terms)
		lex, err := e.keywordSearch(ctx, kw, gen, columns(req.In, match), filter, depth)
		if err != nil {
			<-vecDone
			return Result{}, err
		}
		for i, s := range lex {
			c := get(s.ID)
			c.lexRank, c.lexScore = i+1, s.Score
		}
		res.LexicalHits = len(lex)
	}
	if req.Mode == ModeHybrid {
		// Exact channel: chunks holding an identifier the query names.
		if m := q.IdentMatch(); !m.Empty() {
			ex, err := e.keywordSearch(ctx, kw, gen, columns(req.In, m), filter, depth)
			if err != nil {
				<-vecDone
				return Result{}, err
			}
			for _, s := range ex {
				get(s.ID).exact = true
			}
		}
	}
	if req.Mode != ModeVector && q.Name != "" && req.In != InContent {
		// Definition channel: chunks whose context (the names code
		// defines, the headings prose sits under) holds the one name the
		// query is; fuse checks the name is there whole.
		defs, err := e.keywordSearch(ctx, kw, gen, lexical.InColumns(lexical.Term(strings.ToLower(q.Name)), lexical.ColTitle), filter, depth)
		if err != nil {
			<-vecDone
			return Result{}, err
		}
		for _, s := range defs {
			get(s.ID)
		}
	}
	// What needs only the lexical candidates is done while the vector
	// channel runs: their refs, definitions and phrase coverage.
	metas := map[int64]store.ChunkMeta{} // read so far, with their text
	cov, err := e.lexicalFollowUp(ctx, kw, req, q, gen, cands, metas)
	<-vecDone
	if err != nil {
		return Result{}, err
	}
	if vecErr != nil {
		return Result{}, vecErr
	}
	if vec != nil {
		for i, v := range vec {
			c := get(v.id)
			c.vecRank, c.vecSim, c.ref, c.known = i+1, v.sim, v.ref, true
		}
		res.VectorHits = len(vec)
	}
	// Every candidate's ref is loaded: the lexical ones' by
	// lexicalFollowUp, the vector ones' with them.
	list := knownOf(cands)
	if err := e.markDefinitions(ctx, kw, list, q.Name); err != nil {
		return Result{}, err
	}
	if req.Mode == ModeHybrid {
		e.fillCosines(list, queryVecs)
	}
	wv := e.Tuning.VectorWeight
	if hybridCC(req, e.Tuning) {
		wv *= max(1-cov, minVectorShare)
		res.PhraseCoverage = cov
	}
	e.fuse(list, wv, !mentionsTests(q))

	// Pick the hits (at most MaxPerFile per file), then load their text.
	perFile := map[string]int{}
	maxPer := e.Tuning.MaxPerFile
	var chosen []*candidate
	for _, c := range list {
		if maxPer > 0 && perFile[c.ref.RelPath] >= maxPer {
			continue
		}
		perFile[c.ref.RelPath]++
		chosen = append(chosen, c)
		if len(chosen) == req.K {
			break
		}
	}
	if req.Explain {
		if err := e.explain(ctx, &res, list); err != nil {
			return Result{}, err
		}
	}
	ids := make([]int64, len(chosen))
	for i, c := range chosen {
		ids[i] = c.id
	}
	if err := e.readMetas(ctx, ids, metas); err != nil {
		return Result{}, err
	}
	spec := newFocusSpec(q, weight)
	hits, made := make([]Hit, len(chosen)), make([]bool, len(chosen))
	inParallel(len(chosen), focusParallelMin, func(i int) {
		c := chosen[i]
		m, ok := metas[c.id]
		if !ok {
			return // deleted a moment ago
		}
		span, lines := m.Span, srcmap.Map(nil)
		spec := spec
		spec.code = m.IndexKind == record.KindCode
		snippet, focused, srcLines := focus(m.Text, m.Span, m.Lines, spec)
		if m.RepType == record.RepRawText {
			// Only a raw_text chunk's lines are the file's lines; other
			// representations keep their own span (page, time, whole doc).
			span, lines = focused, srcLines
		}
		hits[i], made[i] = Hit{
			ChunkID: c.id, RelPath: m.RelPath, DocType: m.DocType, RepType: m.RepType,
			Score: math.Round(c.fused*1e4) / 1e4, Snippet: snippet, Span: span, lines: lines,
		}, true
	})
	for i, h := range hits {
		if made[i] {
			res.Hits = append(res.Hits, h)
		}
	}
	res.IndexingComplete = e.Complete == nil || e.Complete()
	res.Took = time.Since(start)
	return res, nil
}

// knownOf lists the candidates whose refs are loaded and live.
func knownOf(cands map[int64]*candidate) []*candidate {
	list := make([]*candidate, 0, len(cands))
	for _, c := range cands {
		if c.known {
			list = append(list, c)
		}
	}
	return list
}

// focusParallelMin is the least number of hits whose snippets are made on
// two goroutines: a snippet costs tens of microseconds, and the hits are
// the last step of a search, so with a second core idle (one agent
// searching) they take half as long.
const focusParallelMin = 4

// inParallel calls fn(i) for every i in [0, n), on two goroutines when n
// is at least least, and returns when all calls have.
func inParallel(n, least int, fn func(i int)) {
	split := n
	var wg sync.WaitGroup
	if n >= least {
		split = n / 2
		wg.Go(func() {
			for i := split; i < n; i++ {
				fn(i)
			}
		})
	}
	for i := range split {
		fn(i)
	}
	wg.Wait()
}

// columns restricts a full-text expression to the columns of in.
func columns(in string, match lexical.Expr) lexical.Expr {
	switch in {
	case InTitle:
		return lexical.InColumns(match, lexical.ColPath, lexical.ColTitle)
	case InContent:
		return lexical.InColumns(match, lexical.ColBody)
	}
	return match
}

// depth is the number of candidates each channel contributes.
func (e *Engine) depth(k int) int {
	d := e.Tuning.Candidates
	if d <= 0 {
		d = 100
	}
	return max(d, 4*k)
}

// loadRefs loads refs for candidates that have none; chunks deleted since a
// channel ran stay unknown and are dropped.
func (e *Engine) loadRefs(ctx context.Context, gen store.Generation, cands map[int64]*candidate) error {
	var ids []int64
	for id, c := range cands {
		if !c.known {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	refs, err := e.refs(ctx, gen, ids)
	if err != nil {
		return err
	}
	for id, r := range refs {
		cands[id].ref, cands[id].known = r, true
	}
	return nil
}

// readMetas adds to metas those of the live chunks among ids it lacks.
func (e *Engine) readMetas(ctx context.Context, ids []int64, metas map[int64]store.ChunkMeta) error {
	var missing []int64
	for _, id := range ids {
		if _, ok := metas[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	got, err := e.Store.ChunkMetas(ctx, missing)
	for id, m := range got {
		metas[id] = m
	}
	return err
}

// explain records every candidate with its evidence in res.Candidates.
func (e *Engine) explain(ctx context.Context, res *Result, list []*candidate) error {
	ids := make([]int64, len(list))
	for i, c := range list {
		ids[i] = c.id
	}
	metas, err := e.Store.ChunkMetas(ctx, ids)
	if err != nil {
		return err
	}
	for _, c := range list {
		res.Candidates = append(res.Candidates, Candidate{
			ChunkID: c.id, RelPath: c.ref.RelPath, DocType: c.ref.DocType, IndexKind: c.ref.IndexKind,
			Span: metas[c.id].Span, LexRank: c.lexRank, LexScore: c.lexScore, VecRank: c.vecRank,
			VecSim: c.vecSim, Exact: c.exact, Defines: c.defines, Fused: c.fused,
		})
	}
	return nil
}
