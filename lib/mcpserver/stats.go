package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"

	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

type statsResult struct {
	Root            string                 `json:"root"`
	StateDir        string                 `json:"state_dir"`
	ProtocolVersion string                 `json:"protocol_version"`
	Indexing        statsIndexing          `json:"indexing"`
	Models          state.Models           `json:"models"`
	Documents       statsDocs              `json:"documents"`
	Vectors         map[string]statsVector `json:"vectors"`
	Keywords        statsKeywords          `json:"keywords"`
	// Replica is the stream position and lag of a serve replica
	// (docs/scaling.md); omitted on a local index.
	Replica any `json:"replica,omitempty"`
}

type statsIndexing struct {
	JobID           string `json:"job_id"`
	Running         bool   `json:"running"`
	Mode            string `json:"mode"`
	Scanned         int64  `json:"scanned"`
	Indexed         int64  `json:"indexed"`
	Unchanged       int64  `json:"unchanged"`
	Skipped         int64  `json:"skipped"`
	Deleted         int64  `json:"deleted"`
	Representations int64  `json:"representations"`
	ChunksTotal     int64  `json:"chunks_total"`
	EmbeddedOK      int64  `json:"embedded_ok"`
	Pending         int64  `json:"pending"`
	Errors          int64  `json:"errors"`
	// Interrupted: the last job stopped before it finished; the next run
	// resumes it.
	Interrupted bool `json:"interrupted"`
	// ResumedFrom is the interrupted job the current one resumes.
	ResumedFrom string `json:"resumed_from,omitempty"`
}

type statsDocs struct {
	Total     int64            `json:"total"`
	ByStatus  map[string]int64 `json:"by_status"`
	ByDocType map[string]int64 `json:"by_doc_type"`
	// AwaitingProvider lists documents skipped until a provider is
	// configured (audio without speech-to-text, images without OCR).
	AwaitingProvider []statsWaiting `json:"awaiting_provider,omitempty"`
	// SecretExcluded lists the files (within the caller's scope) kept out
	// of the index because their content matched a secret pattern, each
	// with the rule, so a false positive is seen (never the content).
	SecretExcluded []corpus.Excluded `json:"secret_excluded,omitempty"`
}

type statsWaiting struct {
	DocType string `json:"doc_type"`
	Count   int64  `json:"count"`
	Reason  string `json:"reason"`
}

type statsVector struct {
	File      string `json:"file"`
	IndexKind string `json:"index_kind"`
	Model     string `json:"model"`
	Dim       int    `json:"dim"`
	Count     int    `json:"count"`
	LoadedAt  string `json:"loaded_at,omitempty"`
}

// statsKeywords describes the keyword (BM25) index.
type statsKeywords struct {
	File     string `json:"file"`
	Chunks   int64  `json:"chunks"`
	Segments int    `json:"segments"`
	// Lag is how many logged chunk changes the index does not hold yet
	// (while indexing, or while it is first built from the store).
	Lag int64 `json:"lag"`
}

// IndexKindName describes the vector index implementation in stats; an
// index large enough for the approximate path (vector.Snapshot.Approximate)
// is IndexKindApprox instead, so a client can tell which search answers.
const (
	IndexKindName   = "segments-int8-f32 (int8 code scan, exact float32 re-scoring of the candidates)"
	IndexKindApprox = "segments-1bit-int8-f32 (approximate: one-bit code scan, int8 then exact float32 re-scoring of the candidates)"
)

func (s *Server) stats(ctx context.Context, _ *args) (toolOut, error) {
	st := s.currentStatus(ctx)
	counts, err := s.Store.Counts(ctx)
	if err != nil {
		return toolOut{}, err
	}
	st.Totals = counts
	var models state.Models
	if s.Models != nil {
		models = s.Models()
	}
	res := statsResult{
		Root: s.Root.Dir(), StateDir: s.Dir.Path, ProtocolVersion: state.ProtocolVersion,
		Indexing: statsIndexing{
			JobID: st.JobID, Running: st.Running, Mode: orMode(st.Mode),
			Scanned: st.Run.Scanned, Indexed: st.Run.Indexed, Unchanged: st.Run.Unchanged, Skipped: st.Run.Skipped,
			Deleted: st.Run.Deleted, Representations: counts.Representations, ChunksTotal: counts.Chunks,
			EmbeddedOK: counts.Embedded, Pending: counts.Pending, Errors: st.Run.Errors,
			Interrupted: st.Interrupted, ResumedFrom: st.ResumedFrom,
		},
		Models:    models,
		Documents: statsDocs{Total: counts.Documents, ByStatus: counts.ByStatus, ByDocType: counts.ByDocType},
		Vectors:   map[string]statsVector{},
	}
	for kind, rl := range s.Engine.Vectors {
		v := statsVector{File: vector.FileName(kind), IndexKind: IndexKindName}
		if ix := rl.Current(); ix != nil {
			v.Model, v.Dim, v.Count = ix.Model(), ix.Dim(), ix.Len()
			if ix.Approximate() {
				v.IndexKind = IndexKindApprox
			}
		}
		if stt := rl.Status(); !stt.LoadedAt.IsZero() {
			v.LoadedAt = stt.LoadedAt.UTC().Format(time.RFC3339)
		}
		res.Vectors[kind] = v
	}
	res.Keywords = statsKeywords{File: postings.FileName}
	if s.Engine.Keywords != nil {
		kw := s.Engine.Keywords.Current()
		res.Keywords.Chunks, res.Keywords.Segments = kw.Rows(), kw.Segments()
		if last, err := s.Store.PostingsLast(ctx); err == nil {
			res.Keywords.Lag = max(0, last-kw.Applied())
		}
	}
	waiting, err := s.Store.WaitingDocuments(ctx)
	if err != nil {
		return toolOut{}, err
	}
	for _, w := range waiting {
		res.Documents.AwaitingProvider = append(res.Documents.AwaitingProvider, statsWaiting{w.DocType, w.Count, w.Reason})
	}
	x, err := corpus.ExcludedDocs(ctx, s.Store, []string{string(errcode.SecretExcluded)}, corpus.ScopeFrom(ctx).Paths(), s.secretPatterns())
	if err != nil {
		return toolOut{}, err
	}
	res.Documents.SecretExcluded = x[:min(len(x), maxStatsExcluded)]
	summary := fmt.Sprintf("Index of %s: %d documents (%s), %d chunks, %d embedded, %d pending; indexing running=%v; embedders text=%s code=%s",
		res.Root, counts.Documents, store.FormatCounts(counts.ByStatus), counts.Chunks, counts.Embedded, counts.Pending, st.Running,
		models.EmbedText, models.EmbedCode)
	if s.Replica != nil {
		res.Replica = s.Replica()
		summary += fmt.Sprintf("\n%v", res.Replica)
	}
	if st.Interrupted {
		summary += fmt.Sprintf("\nThe last indexing job (%s) was interrupted before it finished; the next `dir2mcp up` or `dir2mcp index` resumes it.", st.JobID)
	}
	for _, w := range waiting {
		summary += fmt.Sprintf("\n%d %s file(s) skipped: %s", w.Count, w.DocType, w.Reason)
	}
	if line := corpus.ExcludedLine(x, maxStatsExcluded); line != "" {
		summary += "\n" + strings.Replace(line, "see dir2mcp status --excluded", "list_files excluded=true lists them", 1)
	}
	return toolOut{out: res, summary: summary}, nil
}

// maxStatsExcluded bounds the files excluded as secrets stats names.
const maxStatsExcluded = 50

// secretPatterns are the configured secret patterns (nil without a config).
func (s *Server) secretPatterns() []string {
	if s.Config == nil {
		return nil
	}
	return s.Config.Security.SecretPatterns
}

func orMode(m string) string {
	if m == "" {
		return "incremental"
	}
	return m
}

// currentStatus reports the indexing job: from the in-process job when this
// server runs inside `up`, else from corpus.json written by whoever indexes.
func (s *Server) currentStatus(ctx context.Context) indexer.Status {
	if s.Status != nil {
		return s.Status(ctx)
	}
	c, err := s.Dir.ReadCorpus()
	if err != nil {
		return indexer.Status{Mode: "incremental"}
	}
	ix := c.Indexing.Live()
	return indexer.Status{
		JobID: ix.JobID, Running: ix.Running, Mode: ix.Mode, Interrupted: ix.Interrupted, ResumedFrom: ix.ResumedFrom,
		Run: indexer.Snapshot{Scanned: ix.Scanned, Indexed: ix.Indexed, Unchanged: ix.Unchanged, Skipped: ix.Skipped,
			Deleted: ix.Deleted, Errors: ix.Errors},
	}
}
