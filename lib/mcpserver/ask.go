package mcpserver

import (
	"context"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/answer"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

var askParams = append([]param{
	str("question", "the question to answer from the indexed content").need(),
	kParam("number of supporting hits to retrieve"),
	oneOf("mode", "answer composes an answer with citations; search_only returns only the hits", answer.Modes, answer.ModeAnswer),
}, filterParams...)

func (s *Server) ask(ctx context.Context, a *args) (toolOut, error) {
	req := searchRequest(ctx, a, "question", s.Config.RAG.KDefault)
	mode := a.str("mode")
	res, err := s.asker(ctx).Ask(ctx, req, mode)
	if err != nil {
		return toolOut{}, err
	}
	files := hitFiles(res.Hits)
	if mode == answer.ModeSearchOnly {
		return toolOut{out: res, summary: summarizeHits(searchResultOf(res)), files: files}, nil
	}
	text := res.Answer
	if !res.IndexingComplete {
		text += "\n\n(indexing is still running; the answer may be incomplete)"
	}
	return toolOut{out: res, summary: strings.TrimSpace(text), files: files}, nil
}

func searchResultOf(r answer.Result) retrieve.Result {
	return retrieve.Result{Query: r.Question, K: len(r.Hits), IndexUsed: "", Hits: r.Hits, IndexingComplete: r.IndexingComplete}
}
