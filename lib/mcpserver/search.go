package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// filterParams are the search filters search and ask share.
var filterParams = []param{
	oneOf("index", "auto searches both the text and code indexes and fuses them; text/code restrict to one", retrieve.Indexes, retrieve.IndexAuto),
	str("path_prefix", "only files whose rel_path starts with this"),
	str("file_glob", "gitignore-style glob on rel_path, e.g. *.go or docs/**/*.md"),
	strList("doc_types", "only these document types", retrieve.DocTypes...),
	oneOf("in", "where to match: document titles and paths (title), chunk text (content) or both", retrieve.Ins, retrieve.InBoth),
}

// kParam is the number of hits a question draws on.
func kParam(desc string) param {
	return integer("k", desc, 1, retrieve.MaxK).withDefault(retrieve.DefaultK)
}

var searchParams = append(append([]param{
	str("query", "what to find: words, a question, or an identifier").need(),
	kParam("number of hits to return (per page: next_cursor continues past them)"),
}, filterParams...), maxTokensParam, cursorParam)

// searchRequest reads the arguments shared by search and ask; k defaults
// to defK (rag.k_default). Hits stay within the caller's scope (ctx).
func searchRequest(ctx context.Context, a *args, queryField string, defK int) retrieve.Request {
	k := defK
	if k < 1 || k > retrieve.MaxK {
		k = retrieve.DefaultK
	}
	if a.has("k") {
		k = a.integer("k")
	}
	return retrieve.Request{
		Query: a.str(queryField), K: k, Index: a.str("index"), PathPrefix: a.str("path_prefix"),
		FileGlob: a.str("file_glob"), DocTypes: a.strings("doc_types"), In: a.str("in"),
		Within: corpus.ScopeFrom(ctx).Paths(),
	}
}

func (s *Server) search(ctx context.Context, a *args) (toolOut, error) {
	req := searchRequest(ctx, a, "query", s.Config.RAG.KDefault)
	page, err := s.searchPage(ctx, a, req)
	if err != nil {
		return toolOut{}, err
	}
	summary := summarizeHits(page.Result)
	switch {
	case page.OmittedHits > 0:
		summary += fmt.Sprintf("\n… %d more hit(s) cut at max_tokens; continue with cursor=%s", page.OmittedHits, page.NextCursor)
	case page.NextCursor != "":
		summary += "\n… more hits with cursor=" + page.NextCursor
	}
	return toolOut{out: page, summary: summary, files: hitFiles(page.Hits)}, nil
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
	size := 120
	for _, h := range res.Hits {
		size += len(h.RelPath) + len(h.Snippet) + 4*strings.Count(h.Snippet, "\n") + 40
	}
	b.Grow(size)
	var numBuf [32]byte
	num := numBuf[:0] // scratch for numbers
	if len(res.Hits) == 0 {
		b.WriteString("No matches for ")
		b.WriteString(strconv.Quote(res.Query))
		b.WriteByte('.')
	} else {
		num = strconv.AppendInt(num[:0], int64(len(res.Hits)), 10)
		b.Write(num)
		b.WriteString(" result(s) for ")
		b.WriteString(strconv.Quote(res.Query))
		if res.IndexUsed != "" {
			b.WriteString(" (index: ")
			b.WriteString(res.IndexUsed)
			b.WriteByte(')')
		}
		b.WriteString(":\n")
		for i, h := range res.Hits {
			num = strconv.AppendInt(append(num[:0], '\n'), int64(i+1), 10)
			b.Write(num)
			b.WriteString(". ")
			b.WriteString(retrieve.Cite(h.RelPath, h.Span))
			b.WriteString(" score=")
			num = strconv.AppendFloat(num[:0], h.Score, 'f', 4, 64) // as %.4f
			b.Write(num)
			b.WriteByte('\n')
			for ln := range strings.SplitSeq(h.Snippet, "\n") {
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
