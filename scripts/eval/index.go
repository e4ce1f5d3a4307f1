package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/eval"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// index is one indexed corpus variant: the engine searches run on, and an
// MCP client of a server over the same state, for open_file.
type index struct {
	st            *store.Store
	eng           *retrieve.Engine
	cite          *citer
	took          time.Duration
	files, chunks int64
}

// openIndex builds (or reuses) the index of a corpus variant under the
// given config with the in-process pipeline `dir2mcp up` runs; the cache
// key is the indexing policy, the embedders and the store schema.
func openIndex(corpus, variant, root string, cfg *config.Config, embs map[string]embed.Embedder) (*index, error) {
	ctx := context.Background()
	var ids []string
	for _, k := range []string{record.KindText, record.KindCode} {
		ids = append(ids, embs[k].ID())
	}
	key := fmt.Sprintf("%s|%s|%d", indexer.PolicyFingerprint(cfg), strings.Join(ids, ","), store.SchemaVersion)
	sum := sha256.Sum256([]byte(key + store.SchemaDDL()))
	dir := state.Dir{Path: filepath.Join(*work, "state", corpus+"-"+variant+"-"+hex.EncodeToString(sum[:6]))}
	if *reindex {
		os.RemoveAll(dir.Path)
	}
	if err := dir.Ensure(); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	job := &indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs, Events: events.NewHuman(os.Stderr, os.Stderr, true)}
	if err := job.Run(ctx); err != nil {
		st.Close()
		return nil, err
	}
	ix := &index{st: st, took: time.Since(start).Round(time.Millisecond)}
	c, _ := st.Counts(ctx)
	ix.files, ix.chunks = c.Documents, c.Chunks
	fmt.Fprintf(os.Stderr, "%s/%s: %d files, %d chunks (index %s)\n", corpus, variant, c.Documents, c.Chunks, ix.took)
	ix.eng = retrieve.Open(st, dir, cfg, embs, 0)
	ix.eng.WaitLoaded()
	if ix.cite, err = newCiter(ctx, ix.eng, st, dir, root, cfg); err != nil {
		ix.close()
		return nil, err
	}
	return ix, nil
}

func (ix *index) close() {
	if ix.cite != nil {
		ix.cite.close()
	}
	if ix.eng != nil {
		ix.eng.Close()
	}
	ix.st.Close()
}

// result is one set variant × mode: the summaries per half and the citation
// checks per doc type.
type result struct {
	sv     setVariant
	mode   string
	byHalf map[string]eval.Summary
	cite   map[string]*citeCount // by half
	byType map[string]*citeCount // by doc type, both halves
}

func (r *result) countType(t string, ok bool) {
	if r.byType[t] == nil {
		r.byType[t] = &citeCount{}
	}
	r.byType[t].add(ok)
}

type citeCount struct{ ok, n int }

func (c *citeCount) add(ok bool) {
	c.n++
	if ok {
		c.ok++
	}
}

func (c *citeCount) share() float64 {
	if c == nil || c.n == 0 {
		return 0
	}
	return float64(c.ok) / float64(c.n)
}

// score runs a set's queries of the selected halves in one mode. A set
// judged by line ranges is scored on the hits as returned (k = 10); a
// whole-file set on the distinct files of the top 50 hits. The first 10
// hits of every search have their citation checked.
func (ix *index) score(sv setVariant, qs []eval.Query, qrels eval.Qrels, mode string, halves []string, dump *dumper) (*result, error) {
	lines := eval.LineDocs(qrels)
	k := retrieve.MaxK
	if lines {
		k = eval.K
	}
	r := &result{sv: sv, mode: mode, byHalf: map[string]eval.Summary{}, cite: map[string]*citeCount{}, byType: map[string]*citeCount{}}
	scores := map[string][]eval.Scores{}
	lat := map[string][]time.Duration{}
	ctx := context.Background()
	for _, q := range qs {
		half := eval.Half(q.ID)
		if !contains(halves, half) {
			continue
		}
		start := time.Now()
		res, err := ix.eng.Search(ctx, retrieve.Request{Query: q.Text, K: k, Mode: mode, Explain: *explain && dump != nil && mode == retrieve.ModeHybrid})
		if err != nil {
			return nil, fmt.Errorf("%s %q: %v", q.ID, q.Text, err)
		}
		lat[half] = append(lat[half], time.Since(start))
		var hits []eval.Hit
		for _, h := range res.Hits {
			eh := eval.Hit{Path: h.RelPath}
			if h.Span.Kind == record.SpanLines {
				eh.Start, eh.End = h.Span.StartLine, h.Span.EndLine
			}
			hits = append(hits, eh)
		}
		var s eval.Scores
		if lines {
			s = eval.ScoreHits(hits, qrels[q.ID])
		} else {
			paths := make([]string, len(hits))
			for i, h := range hits {
				paths[i] = h.Path
			}
			s = eval.Score(eval.Distinct(paths), qrels[q.ID])
		}
		scores[half] = append(scores[half], s)
		if r.cite[half] == nil {
			r.cite[half] = &citeCount{}
		}
		checked := res.Hits[:min(len(res.Hits), eval.K)]
		if !*citeF {
			checked = nil
		}
		oks := make([]bool, len(checked))
		for i, h := range checked {
			ok, err := ix.cite.check(ctx, h)
			if err != nil {
				return nil, err
			}
			oks[i] = ok
			r.cite[half].add(ok)
			r.countType(h.DocType, ok)
		}
		if *verbose && s.SuccessK == 0 {
			top := make([]string, 0, 3)
			for _, h := range hits[:min(3, len(hits))] {
				top = append(top, fmt.Sprintf("%s:L%d-L%d", h.Path, h.Start, h.End))
			}
			fmt.Printf("MISS %s %s %s %q → %v\n", sv.label(), mode, q.ID, q.Text, top)
		}
		if dump != nil {
			if err := dump.write(sv, q, half, mode, res, oks, s, qrels[q.ID]); err != nil {
				return nil, err
			}
		}
	}
	for h, sc := range scores {
		r.byHalf[h] = eval.Summarize(sc, lat[h])
	}
	return r, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
