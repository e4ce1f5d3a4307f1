package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

// vecRecall is recall@10 of the server's vector search against the exact
// scan, per index kind, for the bench queries.
type vecRecall struct {
	kinds []kindRecall
	err   string
}

type kindRecall struct {
	kind    string
	vectors int
	recall  float64 // mean share of the exact top 10 that Search returns
	approx  bool    // Search took the approximate path (one-bit codes)
}

// vectorRecall opens the vector files of state read-only, as a server
// does, embeds qs the way the server embeds queries (per kind, Query set:
// by the offline default embedders, or by the fake provider's bag of words
// for the provider column) and compares Snapshot.Search with
// Snapshot.SearchExact, k = 10.
func vectorRecall(state string, c scaleCorpus, qs []string) vecRecall {
	var out vecRecall
	var embs map[string]embed.Embedder
	if c.fake == nil {
		var err error
		if embs, err = embedders.Open(config.Default()); err != nil {
			return vecRecall{err: err.Error()}
		}
	}
	for _, kind := range []string{"text", "code"} {
		snap, err := vector.Open(filepath.Join(state, vector.FileName(kind)))
		if err != nil {
			return vecRecall{err: err.Error()}
		}
		var vecs [][]float32
		if c.fake != nil {
			for _, q := range qs {
				v := make([]float32, snap.Dim())
				bagOfWords(q, v)
				vecs = append(vecs, v)
			}
		} else {
			emb := embs[kind]
			if emb.ID() != snap.Model() {
				return vecRecall{err: fmt.Sprintf("%s vectors by %s, queries by %s", kind, snap.Model(), emb.ID())}
			}
			in := make([]embed.Input, len(qs))
			for i, q := range qs {
				in[i] = embed.Input{Text: q, Kind: kind, Query: true}
			}
			if vecs, err = emb.Embed(context.Background(), in); err != nil {
				return vecRecall{err: err.Error()}
			}
		}
		hit, all := 0, 0
		for _, q := range vecs {
			got, err := snap.Search(q, 10, nil)
			if err != nil {
				return vecRecall{err: err.Error()}
			}
			want, err := snap.SearchExact(q, 10)
			if err != nil {
				return vecRecall{err: err.Error()}
			}
			for _, h := range want {
				all++
				if slices.ContainsFunc(got, func(g vector.Hit) bool { return g.Label == h.Label }) {
					hit++
				}
			}
		}
		kr := kindRecall{kind: kind, vectors: snap.Len(), approx: snap.Approximate()}
		if all > 0 {
			kr.recall = float64(hit) / float64(all)
		}
		out.kinds = append(out.kinds, kr)
	}
	return out
}

// String is the table cell: per kind, recall and the path taken.
func (v vecRecall) String() string {
	if v.err != "" {
		return "n/a (" + v.err + ")"
	}
	var parts []string
	for _, k := range v.kinds {
		path := "int8, below threshold"
		if k.approx {
			path = "approximate"
		}
		parts = append(parts, fmt.Sprintf("%s %.3f (%s, %d vectors)", k.kind, k.recall, path, k.vectors))
	}
	return strings.Join(parts, "; ")
}
