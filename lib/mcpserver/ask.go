package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/answer"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

func (s *Server) ask(ctx context.Context, raw json.RawMessage) (toolOut, error) {
	a, err := parseArgs(raw, "question", "k", "mode", "index", "path_prefix", "file_glob", "doc_types", "in")
	if err != nil {
		return toolOut{}, err
	}
	req, err := searchRequest(a, "question", s.Config.RAG.KDefault)
	if err != nil {
		return toolOut{}, err
	}
	mode, err := a.enum("mode", answer.ModeAnswer, answer.ModeAnswer, answer.ModeSearchOnly)
	if err != nil {
		return toolOut{}, err
	}
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
