package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
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

func (s *Server) transcribe(ctx context.Context, raw json.RawMessage) (toolOut, error) {
	a, err := parseArgs(raw, "rel_path", "language", "timestamps", "retranscribe")
	if err != nil {
		return toolOut{}, err
	}
	var o transcribeOptions
	rel, err := a.str("rel_path", true)
	if err != nil {
		return toolOut{}, err
	}
	if o.language, err = a.str("language", false); err != nil {
		return toolOut{}, err
	}
	if o.timestamps, err = a.boolean("timestamps", true); err != nil {
		return toolOut{}, err
	}
	if o.fresh, err = a.boolean("retranscribe", false); err != nil {
		return toolOut{}, err
	}
	tr, t, transcribed, err := s.ensureTranscript(ctx, rel, o)
	if err != nil {
		return toolOut{}, err
	}
	out := transcribeResult{RelPath: t.rel, Provider: tr.Provider, Model: tr.Model, Indexed: true, Transcribed: transcribed}
	var b strings.Builder
	verb := "Stored transcript of"
	if transcribed {
		verb = "Transcribed"
	}
	fmt.Fprintf(&b, "%s %s with %s/%s", verb, t.rel, tr.Provider, tr.Model)
	if o.timestamps && tr.Timestamps {
		out.Segments = make([]segmentOut, len(tr.Segments))
		for i, g := range tr.Segments {
			out.Segments[i] = segmentOut{g.StartMs, g.EndMs, g.Text}
		}
		fmt.Fprintf(&b, " (%d segments; indexed, cite as [%s@t=mm:ss-mm:ss]):\n", len(tr.Segments), t.rel)
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
	return toolOut{out: out, summary: strings.TrimRight(b.String(), "\n"), files: []string{t.rel}}, nil
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
func (s *Server) ensureTranscript(ctx context.Context, rel string, o transcribeOptions) (tr *transcript.Transcript, t target, transcribed bool, err error) {
	if t, err = s.target(ctx, rel); err != nil {
		return nil, t, false, err
	}
	limit := indexer.SizeCaps(s.Config)(record.DocAudio)
	data, truncated, err := s.read(ctx, &t, limit)
	if err != nil {
		return nil, t, false, err
	}
	if truncated {
		return nil, t, false, errcode.FieldError(errcode.FileTooLarge, "rel_path", "%s is larger than the %d-byte cap for audio (ingest.size_caps_mb.audio)", t.rel, limit)
	}
	if t.docType != record.DocAudio {
		return nil, t, false, errcode.FieldError(errcode.DocTypeUnsupported, "rel_path", "%s is not an audio file (doc_type %s)", t.rel, t.docType)
	}
	if !o.fresh && t.known && t.doc.ContentHash == cache.ContentHash(data) {
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
	tr, err = stt.Transcribe(ctx, transcript.Audio{Data: data, Name: path.Base(t.rel), MIME: transcript.MIMEByExt(t.rel),
		Language: o.language, Timestamps: o.timestamps})
	if err != nil {
		return nil, t, false, err
	}
	if err := s.secretCheck(t.rel, []byte(tr.Text)); err != nil {
		return nil, t, false, err
	}
	rep, pieces := indexer.TranscriptRep(s.Config, tr)
	if err := s.storeReps(ctx, &t, data, []store.RepInput{rep}, [][]store.ChunkInput{pieces}); err != nil {
		return nil, t, false, err
	}
	return tr, t, true, nil
}

// storedTranscript returns t's stored transcript, or nil.
func (s *Server) storedTranscript(ctx context.Context, t target) *transcript.Transcript {
	content, _, ok, err := s.Store.RepContent(ctx, t.doc.DocID, record.RepTranscript)
	if err != nil || !ok {
		return nil
	}
	var tr transcript.Transcript
	if json.Unmarshal([]byte(content), &tr) != nil {
		return nil
	}
	return &tr
}
