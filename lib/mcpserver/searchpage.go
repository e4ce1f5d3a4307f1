package mcpserver

import (
	"context"
	"hash/fnv"
	"slices"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

const searchTool = "dir2mcp.search"

// hitOverhead is the estimated tokens of a hit's fields besides its
// snippet and path.
const hitOverhead = 12

// searchResult is a page of search hits: retrieve's result, what
// max_tokens cut, and the cursor to the next page.
type searchResult struct {
	retrieve.Result
	Truncated   bool   `json:"truncated"`
	OmittedHits int    `json:"omitted_hits,omitempty"`
	NextCursor  string `json:"next_cursor,omitempty"`
}

// searchArgs are the arguments a search cursor is bound to (the request
// without k, which may change from page to page).
type searchArgs struct {
	Query    string   `json:"query"`
	Index    string   `json:"index"`
	Prefix   string   `json:"path_prefix"`
	Glob     string   `json:"file_glob"`
	DocTypes []string `json:"doc_types"`
	In       string   `json:"in"`
}

// searchPos is what the pages so far showed: a 32-bit hash of each hit's
// rel_path and span (not chunk ids, which a re-index renumbers).
type searchPos struct {
	Seen []uint32 `json:"s"`
}

// hitKey is the FNV-1a hash of "<rel_path>\x00<kind>:<start_line>:<end_line>:<page>:<start_ms>:<end_ms>".
func hitKey(h retrieve.Hit) uint32 {
	var buf [160]byte
	b := append(buf[:0], h.RelPath...)
	b = append(b, 0)
	b = append(b, h.Span.Kind...)
	for _, n := range [...]int64{int64(h.Span.StartLine), int64(h.Span.EndLine), int64(h.Span.Page), h.Span.StartMs, h.Span.EndMs} {
		b = append(b, ':')
		b = strconv.AppendInt(b, n, 10)
	}
	f := fnv.New32a() // devirtualized: no allocation
	f.Write(b)
	return f.Sum32()
}

// engineSearch runs req on the engine, or on the searchFunc a benchmark
// installed (to time the MCP layer without the retrieval channels).
func (s *Server) engineSearch(ctx context.Context, req retrieve.Request) (retrieve.Result, error) {
	if s.searchFunc != nil {
		return s.searchFunc(ctx, req)
	}
	return s.Engine.Search(ctx, req)
}

// searchPage runs req as one page. The first page is the plain search;
// a cursor's page ranks the hits shown so far plus k more (up to
// retrieve.MaxPagedK) and returns the best k not shown yet, so no hit is
// shown twice and none ranked above the page is skipped. max_tokens then
// cuts hits from the end of the page (those come first on the next page),
// and clips the snippet of a first hit that alone is over it.
func (s *Server) searchPage(ctx context.Context, a *args, req retrieve.Request) (searchResult, error) {
	sa := searchArgs{Query: req.Query, Index: req.Index, Prefix: req.PathPrefix, Glob: req.FileGlob, DocTypes: req.DocTypes, In: req.In}
	var pos searchPos
	resumed, err := s.resume(ctx, searchTool, a, sa, &pos)
	if err != nil {
		return searchResult{}, err
	}
	k := req.K
	if resumed {
		req.K, req.Paged = min(len(pos.Seen)+k, retrieve.MaxPagedK), true
	}
	res, err := s.engineSearch(ctx, req)
	if err != nil {
		return searchResult{}, err
	}
	ranked := len(res.Hits)
	hits := res.Hits[:0]
	for _, h := range res.Hits {
		if len(pos.Seen) == 0 || !slices.Contains(pos.Seen, hitKey(h)) {
			hits = append(hits, h)
		}
	}
	more := len(hits) > k || ranked == req.K && req.K < retrieve.MaxPagedK
	hits = hits[:min(k, len(hits))]
	out := searchResult{Result: res}
	if budget := a.integer("max_tokens"); budget > 0 {
		used, keep := 0, 0
		for _, h := range hits {
			used += tokens(h.Snippet) + tokens(h.RelPath) + hitOverhead
			if used > budget && keep > 0 {
				break
			}
			keep++
		}
		out.OmittedHits = len(hits) - keep
		hits = hits[:keep]
		if len(hits) == 1 && used > budget { // the best hit alone is over: clip its snippet
			hits[0].Snippet, out.Truncated = clipTokens(hits[0].Snippet, budget-tokens(hits[0].RelPath)-hitOverhead)
		}
	}
	out.Hits = hits
	out.K = k
	out.Truncated = out.Truncated || out.OmittedHits > 0
	if (more || out.OmittedHits > 0) && len(hits) > 0 {
		seen := slices.Clone(pos.Seen)
		for _, h := range hits {
			seen = append(seen, hitKey(h))
		}
		out.NextCursor = s.cursorAt(ctx, searchTool, sa, searchPos{Seen: seen})
	}
	return out, nil
}
