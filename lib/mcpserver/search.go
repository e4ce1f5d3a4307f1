package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// searchArgs decodes the filter arguments shared by search and ask.
// searchRequest decodes the arguments shared by search and ask; k defaults
// to defK (rag.k_default).
func searchRequest(a *args, queryField string, defK int) (retrieve.Request, error) {
	var r retrieve.Request
	var err error
	if defK < 1 || defK > retrieve.MaxK {
		defK = 10
	}
	if r.Query, err = a.str(queryField, true); err != nil {
		return r, err
	}
	if r.K, _, err = a.integer("k", defK, 1, retrieve.MaxK); err != nil {
		return r, err
	}
	if r.Index, err = a.enum("index", retrieve.IndexAuto, retrieve.IndexAuto, retrieve.IndexText, retrieve.IndexCode, retrieve.IndexBoth); err != nil {
		return r, err
	}
	if r.PathPrefix, err = a.str("path_prefix", false); err != nil {
		return r, err
	}
	if r.FileGlob, err = a.str("file_glob", false); err != nil {
		return r, err
	}
	if r.DocTypes, err = a.strings("doc_types"); err != nil {
		return r, err
	}
	if r.In, err = a.enum("in", retrieve.InBoth, retrieve.InBoth, retrieve.InTitle, retrieve.InContent); err != nil {
		return r, err
	}
	return r, nil
}

func (s *Server) search(ctx context.Context, raw json.RawMessage) (toolOut, error) {
	a, err := parseArgs(raw, "query", "k", "index", "path_prefix", "file_glob", "doc_types", "in")
	if err != nil {
		return toolOut{}, err
	}
	req, err := searchRequest(a, "query", s.Config.RAG.KDefault)
	if err != nil {
		return toolOut{}, err
	}
	res, err := s.Engine.Search(ctx, req)
	if err != nil {
		return toolOut{}, err
	}
	return toolOut{out: res, summary: summarizeHits(res), files: hitFiles(res.Hits)}, nil
}

// hitFiles lists the distinct files of hits in rank order.
func hitFiles(hits []retrieve.Hit) []string {
	var files []string
	seen := map[string]bool{}
	for _, h := range hits {
		if !seen[h.RelPath] {
			seen[h.RelPath] = true
			files = append(files, h.RelPath)
		}
	}
	return files
}

// summarizeHits is the text content of a search result: one line per hit
// with its citation, then the snippet indented.
func summarizeHits(res retrieve.Result) string {
	var b strings.Builder
	if len(res.Hits) == 0 {
		fmt.Fprintf(&b, "No matches for %q.", res.Query)
	} else {
		fmt.Fprintf(&b, "%d result(s) for %q", len(res.Hits), res.Query)
		if res.IndexUsed != "" {
			fmt.Fprintf(&b, " (index: %s)", res.IndexUsed)
		}
		b.WriteString(":\n")
		for i, h := range res.Hits {
			fmt.Fprintf(&b, "\n%d. %s score=%.4f\n", i+1, retrieve.Cite(h.RelPath, h.Span), h.Score)
			for _, ln := range strings.Split(h.Snippet, "\n") {
				b.WriteString("   ")
				b.WriteString(ln)
				b.WriteByte('\n')
			}
		}
	}
	if !res.IndexingComplete {
		b.WriteString("\n(indexing is still running; results may be incomplete)")
	}
	return strings.TrimRight(b.String(), "\n")
}
