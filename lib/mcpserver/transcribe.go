package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

type segmentOut struct {
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	Text    string `json:"text"`
}

type transcribeResult struct {
	RelPath     string       `json:"rel_path"`
	Provider    string       `json:"provider"`
	Model       string       `json:"model"`
	Indexed     bool         `json:"indexed"`
	Transcribed bool         `json:"transcribed"`
	Segments    []segmentOut `json:"segments,omitempty"`
}

var transcribeParams = []param{
	str("rel_path", "audio file (or archive member) relative to the root").need(),
	str("language", "ISO 639-1 language hint, e.g. en (Mistral ignores it when timestamps are requested)"),
	boolean("timestamps", "return and index timed segments").withDefault(true),
	boolean("retranscribe", "transcribe again even if a transcript is stored or cached").withDefault(false),
}

func (s *Server) transcribe(ctx context.Context, a *args) (toolOut, error) {
	rel := a.str("rel_path")
	o := transcribeOptions{language: a.str("language"), timestamps: a.boolean("timestamps"), fresh: a.boolean("retranscribe")}
	tr, t, transcribed, err := s.ensureTranscript(ctx, rel, o)
	if err != nil {
		return toolOut{}, err
	}
	out := transcribeResult{RelPath: t.Rel, Provider: tr.Provider, Model: tr.Model, Indexed: true, Transcribed: transcribed}
	var b strings.Builder
	verb := "Stored transcript of"
	if transcribed {
		verb = "Transcribed"
	}
	fmt.Fprintf(&b, "%s %s with %s/%s", verb, t.Rel, tr.Provider, tr.Model)
	if o.timestamps && tr.Timestamps {
		out.Segments = make([]segmentOut, len(tr.Segments))
		for i, g := range tr.Segments {
			out.Segments[i] = segmentOut{g.StartMs, g.EndMs, g.Text}
		}
		fmt.Fprintf(&b, " (%d segments; indexed, cite as [%s@t=mm:ss-mm:ss]):\n", len(tr.Segments), t.Rel)
		for i, g := range tr.Segments {
			if i == 50 {
				fmt.Fprintf(&b, "… %d more segments in structuredContent\n", len(tr.Segments)-i)
				break
			}
			fmt.Fprintf(&b, "[%s-%s] %s\n", clockOf(g.StartMs), clockOf(g.EndMs), g.Text)
		}
	} else {
		text, cut := clipText(tr.Text, 4000)
		if cut {
			text += "…"
		}
		fmt.Fprintf(&b, " (indexed):\n%s", text)
	}
	return toolOut{out: out, summary: strings.TrimRight(b.String(), "\n"), files: []string{t.Rel}}, nil
}

type transcribeOptions struct {
	language   string
	timestamps bool
	fresh      bool // ignore stored and cached transcripts
}

// ensureTranscript returns a current transcript of the audio at rel: the
// stored one when the file is unchanged since (and it has timestamps if
// wanted), else a new one from the speech-to-text provider, stored as the
// document's transcript representation. transcribed reports a new one.
func (s *Server) ensureTranscript(ctx context.Context, rel string, o transcribeOptions) (tr *transcript.Transcript, t corpus.Target, transcribed bool, err error) {
	if t, err = s.access.Open(ctx, rel); err != nil {
		return nil, t, false, err
	}
	limit := indexer.SizeCaps(s.Config)(record.DocAudio)
	data, truncated, err := s.access.Read(ctx, &t, limit)
	if err != nil {
		return nil, t, false, err
	}
	if truncated {
		return nil, t, false, errcode.FieldError(errcode.FileTooLarge, "rel_path", "%s is larger than the %d-byte cap for audio (ingest.size_caps_mb.audio)", t.Rel, limit)
	}
	if t.DocType != record.DocAudio {
		return nil, t, false, errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s is not an audio file (doc_type %s)", t.Rel, t.DocType)
	}
	if !o.fresh && t.Known && t.Doc.ContentHash == cache.ContentHash(data) {
		if tr := s.storedTranscript(ctx, t); tr != nil && (tr.Timestamps || !o.timestamps) {
			return tr, t, false, nil
		}
	}
	p := s.Providers
	if p == nil || p.STT == nil {
		why := "no speech-to-text provider is configured"
		if p != nil {
			why = p.WhyNoSTT
		}
		return nil, t, false, unavailable(why)
	}
	stt := p.STT
	if o.fresh {
		stt = p.STTFresh
	}
	tr, err = stt.Transcribe(ctx, transcript.Audio{Data: data, Name: path.Base(t.Rel), MIME: transcript.MIMEByExt(t.Rel),
		Language: o.language, Timestamps: o.timestamps})
	if err != nil {
		return nil, t, false, err
	}
	if err := s.access.CheckSecret(t.Rel, []byte(tr.Text)); err != nil {
		return nil, t, false, err
	}
	rep, pieces := indexer.TranscriptRep(s.Config, tr)
	if err := s.storeReps(ctx, &t, data, []indexer.Rep{{Input: rep, Chunks: pieces}}); err != nil {
		return nil, t, false, err
	}
	return tr, t, true, nil
}

// storedTranscript returns t's stored transcript, or nil.
func (s *Server) storedTranscript(ctx context.Context, t corpus.Target) *transcript.Transcript {
	content, _, ok, err := s.Store.RepContent(ctx, t.Doc.DocID, record.RepTranscript)
	if err != nil || !ok {
		return nil
	}
	var tr transcript.Transcript
	if json.Unmarshal([]byte(content), &tr) != nil {
		return nil
	}
	return &tr
}

// storeReps stores representations a tool made for t (see
// indexer.StoreReps), refreshes t when the index did not know it, tells
// Pending about chunks that await embedding, and waits for the keyword
// index to hold them.
func (s *Server) storeReps(ctx context.Context, t *corpus.Target, data []byte, reps []indexer.Rep, drop ...string) error {
	added, err := indexer.StoreReps(ctx, s.Store, s.Root, indexer.ToolDoc{RelPath: t.Rel, DocType: t.DocType, Row: t.Doc, Known: t.Known, Member: t.ArchiveRel != ""},
		data, reps, drop...)
	if err != nil {
		return err
	}
	if !t.Known {
		if d, ok, err := s.Store.Document(ctx, t.Rel); err == nil && ok {
			t.Doc, t.Known = d, true
		}
	}
	if added > 0 && s.Pending != nil {
		s.Pending()
	}
	// What the tool stored is searchable by keyword when it answers.
	if err := s.Store.SyncPostings(ctx); err != nil {
		return err
	}
	if s.Engine != nil && s.Engine.Keywords != nil {
		return s.Engine.Keywords.Refresh()
	}
	return nil
}
