package retrieve

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// Fusion: how the channels' candidates are scored and ordered, and the
// evidence it weighs besides their ranks (phrase coverage, definitions).

// lexicalFollowUp loads the refs of the candidates found so far (the
// lexical channels'), marks those defining the query's name, and returns
// the phrase coverage fusion weighs the vector channel by (hybrid cc
// fusion; 0 otherwise), reading the metas it needs into metas. All of it
// depends on the lexical candidates alone, so Search runs it while the
// vector channel is still searching.
func (e *Engine) lexicalFollowUp(ctx context.Context, kw *postings.Snapshot, req Request, q *lexical.Query, gen store.Generation, cands map[int64]*candidate, metas map[int64]store.ChunkMeta) (float64, error) {
	if len(cands) == 0 {
		return 0, nil
	}
	if err := e.loadRefs(ctx, gen, cands); err != nil {
		return 0, err
	}
	list := knownOf(cands)
	if err := e.markDefinitions(ctx, kw, list, q.Name); err != nil {
		return 0, err
	}
	if !hybridCC(req, e.Tuning) {
		return 0, nil
	}
	return e.phraseCoverage(ctx, list, q, metas)
}

// hybridCC reports whether req is fused by convex combination with a
// vector weight that phrase coverage scales.
func hybridCC(req Request, t config.SearchConfig) bool {
	return req.Mode == ModeHybrid && t.Fusion != "rrf"
}

// fuse scores candidates (see fuseCC and fuseRRF) and sorts them best
// first (ties: the better lexical rank, then path, then id). A chunk
// holding an identifier the query names gets a lexical bonus, so a weak
// vector neighbour cannot outrank a chunk that literally contains the rare
// identifier the user typed.
func (e *Engine) fuse(list []*candidate, wv float64, demoteTests bool) {
	wl := e.Tuning.LexicalWeight
	if wl <= 0 && wv <= 0 {
		wl, wv = 1, 1
	}
	if e.Tuning.Fusion == "rrf" {
		fuseRRF(list, e.Tuning.RRFK, wl, wv)
	} else {
		fuseCC(list, wl, wv)
	}
	for _, c := range list {
		if demoteTests && IsTestFile(c.ref.RelPath) {
			c.fused *= testPrior
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].fused != list[j].fused {
			return list[i].fused > list[j].fused
		}
		if list[i].lexRank != list[j].lexRank {
			return rankLess(list[i].lexRank, list[j].lexRank)
		}
		// By path, not id alone, so two indexes of one tree agree.
		if a, b := list[i].ref.RelPath, list[j].ref.RelPath; a != b {
			return a < b
		}
		return list[i].id < list[j].id
	})
}

// minVectorShare is the least fraction of search.vector_weight the vector
// channel keeps when BM25 explains the query fully: enough to break near
// ties among BM25's finds and to order the hits it did not find, too little
// to overturn a clear BM25 winner (tuned on the tuning halves of make eval).
const minVectorShare = 0.15

// phraseTop is how many of the best lexical candidates phraseCoverage reads.
const phraseTop = 3

// phraseCoverage is the best lexical.PhraseCoverage of the query among the
// top lexical candidates: near 1 when BM25 found a chunk that says what the
// user typed in the same words (then it is almost always right: measured on
// the gostd symbol set, 97% top-1 at ≥ 0.7 against 20% below 0.5), low when
// it only matched scattered words. Hybrid fusion gives the vector channel
// weight in proportion to what BM25 leaves unexplained:
// VectorWeight·max(1−c, minVectorShare).
func (e *Engine) phraseCoverage(ctx context.Context, list []*candidate, q *lexical.Query, metas map[int64]store.ChunkMeta) (float64, error) {
	var ids []int64
	for _, c := range list {
		if c.lexRank > 0 && c.lexRank <= phraseTop {
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	if err := e.readMetas(ctx, ids, metas); err != nil {
		return 0, err
	}
	best := 0.0
	for _, id := range ids {
		if m, ok := metas[id]; ok {
			best = max(best, q.PhraseCoverage(m.Text+"\n"+m.RelPath+"\n"+m.Title))
		}
	}
	return best, nil
}

// exactBonus is the share of the lexical weight a chunk holding an
// identifier the query names gets on top of its BM25 score.
const exactBonus = 0.2

// defineBonus is the share of the lexical weight a chunk gets when its
// context holds the one name the query is: the chunk that defines
// ThreadPoolExecutor, not the many that import or call it.
const defineBonus = 0.5

// markDefinitions sets defines on the candidates of list not marked yet:
// whether their context names name (none when name is empty). The
// keyword index kw (nil: none) spares reading most contexts: its title
// column holds every word of a chunk's context, so a chunk whose title
// lacks the name's tokens cannot define it (a context follows the text in
// its row, and reading it walks a long text's overflow pages).
func (e *Engine) markDefinitions(ctx context.Context, kw *postings.Snapshot, list []*candidate, name string) error {
	if name == "" {
		return nil
	}
	var ids []int64
	for _, c := range list {
		if !c.marked {
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if kw != nil {
		held, err := kw.Holding(name, 1<<postings.ColTitle, ids)
		if err != nil {
			return err
		}
		ids = slices.DeleteFunc(ids, func(id int64) bool {
			h, known := held[id]
			return known && !h
		})
	}
	contexts, err := e.Store.ChunkContexts(ctx, ids)
	if err != nil {
		return err
	}
	for _, c := range list {
		if !c.marked {
			c.defines, c.marked = namesIn(contexts[c.id], name), true
		}
	}
	return nil
}

// namesIn reports whether name occurs whole, with its case, among the
// words of a chunk context.
func namesIn(context, name string) bool {
	found := false
	textsplit.EachWord(context, func(w string) {
		if w == name {
			found = true
		}
	})
	return found
}

// fuseCC is a convex combination of each channel's scores, each divided by
// its best candidate's (BM25 and cosine both have a natural zero):
// wl·bm25/max + wv·cos/max, weights summing to 1. Unlike rank fusion it keeps
// score gaps: a clear BM25 winner stays ahead of chunks that are only
// moderately close in vector space. A chunk holding an identifier the query
// names gets exactBonus·wl more.
func fuseCC(list []*candidate, wl, wv float64) {
	var lexMax, vecMax float64
	lexFound, vecFound := false, false
	for _, c := range list {
		if c.lexRank > 0 || c.exact {
			lexFound = true
			lexMax = math.Max(lexMax, c.lexScore)
		}
		if c.vecRank > 0 || c.filled {
			vecFound = true
			vecMax = math.Max(vecMax, float64(c.vecSim))
		}
	}
	// A channel that found nothing (or did not run) takes no share, so the
	// best hit of a one-channel search scores 1.
	if !lexFound {
		wl = 0
	}
	if !vecFound {
		wv = 0
	}
	if sum := wl + wv; sum > 0 {
		wl, wv = wl/sum, wv/sum
	}
	ratio := func(x, hi float64) float64 {
		if hi <= 0 {
			return 1
		}
		return math.Max(0, x/hi)
	}
	for _, c := range list {
		s := 0.0
		if c.lexRank > 0 {
			s += wl * ratio(c.lexScore, lexMax)
		}
		if c.exact {
			s += wl * exactBonus
		}
		if c.defines {
			s += wl * defineBonus
		}
		if c.vecRank > 0 || c.filled {
			s += wv * ratio(float64(c.vecSim), vecMax)
		}
		c.fused = s
	}
}

// fuseRRF is weighted reciprocal rank fusion: Σ w / (k + rank).
func fuseRRF(list []*candidate, k, wl, wv float64) {
	if k <= 0 {
		k = 60
	}
	for _, c := range list {
		s := 0.0
		if c.lexRank > 0 {
			s += wl / (k + float64(c.lexRank))
		}
		if c.vecRank > 0 {
			s += wv / (k + float64(c.vecRank))
		}
		if c.exact {
			s += wl / (k + 1)
		}
		if c.defines {
			s += wl / (k + 1)
		}
		c.fused = s
	}
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
