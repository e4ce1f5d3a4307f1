package main

import (
	"bufio"
	"encoding/json"
	"os"
	"runtime"

	"github.com/dir2mcp/dir2mcp/lib/eval"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// dumper writes one NDJSON line per query and mode: the ranked hits as
// search returned them, with each one's citation check. The per-channel
// candidate lists of a hybrid search are internal to lib/retrieve (its
// Result carries only their sizes), so the dump has the sizes; the
// lexical and vector rows of the same query are the single-channel rankings.
type dumper struct {
	f *os.File
	w *bufio.Writer
}

type dumpHit struct {
	ChunkID int64       `json:"chunk_id"`
	RelPath string      `json:"rel_path"`
	DocType string      `json:"doc_type"`
	Span    record.Span `json:"span"`
	Score   float64     `json:"score"`
	Snippet string      `json:"snippet"`
	CiteOK  *bool       `json:"cite_ok,omitempty"` // checked for the first 10 hits
}

type dumpLine struct {
	Corpus      string      `json:"corpus"`
	Set         string      `json:"set"`
	Variant     string      `json:"variant"`
	QID         string      `json:"qid"`
	Half        string      `json:"half"`
	Mode        string      `json:"mode"`
	Query       string      `json:"query"`
	Scores      eval.Scores `json:"scores"`
	LexicalHits int         `json:"lexical_candidates"`
	VectorHits  int         `json:"vector_candidates"`
	TookMs      float64     `json:"took_ms"`
	Hits        []dumpHit   `json:"hits"`
}

func newDumper(path string) (*dumper, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &dumper{f: f, w: bufio.NewWriter(f)}, nil
}

func (d *dumper) write(sv setVariant, q eval.Query, half, mode string, res retrieve.Result, cite []bool, s eval.Scores) error {
	l := dumpLine{Corpus: sv.set.Corpus, Set: sv.set.Name, Variant: sv.variant, QID: q.ID, Half: half, Mode: mode, Query: q.Text,
		Scores: s, LexicalHits: res.LexicalHits, VectorHits: res.VectorHits, TookMs: float64(res.Took.Microseconds()) / 1000}
	for i, h := range res.Hits {
		dh := dumpHit{ChunkID: h.ChunkID, RelPath: h.RelPath, DocType: h.DocType, Span: h.Span, Score: h.Score, Snippet: h.Snippet}
		if i < len(cite) {
			ok := cite[i]
			dh.CiteOK = &ok
		}
		l.Hits = append(l.Hits, dh)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = d.w.Write(b)
	return err
}

func (d *dumper) close() error {
	if err := d.w.Flush(); err != nil {
		d.f.Close()
		return err
	}
	return d.f.Close()
}

func goVersion() string { return runtime.Version() }
