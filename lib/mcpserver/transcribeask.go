package mcpserver

import (
	"context"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/answer"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

type transcribeAskResult struct {
	answer.Result
	TranscriptProvider string `json:"transcript_provider"`
	TranscriptModel    string `json:"transcript_model"`
	Transcribed        bool   `json:"transcribed"`
}

var transcribeAskParams = []param{
	str("rel_path", "audio file (or archive member) relative to the root").need(),
	str("question", "the question to answer from the recording").need(),
	kParam("number of transcript passages to draw on"),
}

func (s *Server) transcribeAndAsk(ctx context.Context, a *args) (toolOut, error) {
	rel, question := a.str("rel_path"), a.str("question")
	k := min(max(s.Config.RAG.KDefault, 1), retrieve.MaxK)
	if a.has("k") {
		k = a.integer("k")
	}
	tr, t, transcribed, err := s.ensureTranscript(ctx, rel, transcribeOptions{timestamps: true})
	if err != nil {
		return toolOut{}, err
	}
	hits, complete, err := s.transcriptHits(ctx, t, question, k)
	if err != nil {
		return toolOut{}, err
	}
	res, err := s.asker(ctx).Answer(ctx, question, hits, complete)
	if err != nil {
		return toolOut{}, err
	}
	out := transcribeAskResult{Result: res, TranscriptProvider: tr.Provider, TranscriptModel: tr.Model, Transcribed: transcribed}
	return toolOut{out: out, summary: strings.TrimSpace(res.Answer), files: []string{t.Rel}}, nil
}

// transcriptHits returns up to k passages of t's transcript for question:
// the search's best matches in the file first, then the transcript's other
// chunks in time order (a fresh transcript is searchable by keywords at
// once, by meaning only after it is embedded).
func (s *Server) transcriptHits(ctx context.Context, t corpus.Target, question string, k int) ([]retrieve.Hit, bool, error) {
	res, err := s.Engine.Search(ctx, retrieve.Request{Query: question, K: retrieve.MaxK, PathPrefix: t.Rel, Index: retrieve.IndexText})
	if err != nil {
		return nil, false, err
	}
	var hits []retrieve.Hit
	seen := map[int64]bool{}
	for _, h := range res.Hits {
		if h.RelPath == t.Rel && h.RepType == record.RepTranscript && len(hits) < k {
			hits = append(hits, h)
			seen[h.ChunkID] = true
		}
	}
	if len(hits) < k {
		ids, err := s.Store.RepChunkIDs(ctx, t.Doc.DocID, record.RepTranscript)
		if err != nil {
			return nil, false, err
		}
		metas, err := s.Store.ChunkMetas(ctx, ids)
		if err != nil {
			return nil, false, err
		}
		for _, id := range ids {
			m, ok := metas[id]
			if !ok || seen[id] || len(hits) >= k {
				continue
			}
			hits = append(hits, retrieve.Hit{ChunkID: id, RelPath: m.RelPath, DocType: m.DocType, RepType: m.RepType, Snippet: m.Text, Span: m.Span})
		}
	}
	return hits, res.IndexingComplete, nil
}
