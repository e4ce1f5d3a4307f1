package indexer

import (
	"context"
	"encoding/json"
	"path"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// audioRep transcribes an audio file with the speech-to-text provider.
func (x *Extractor) audioRep(ctx context.Context, r result, data []byte) result {
	tr, err := x.Media.stt().Transcribe(ctx, transcript.Audio{
		Data: data, Name: path.Base(r.doc.RelPath), MIME: transcript.MIMEByExt(r.doc.RelPath), Timestamps: x.Media.Timestamps,
	})
	if err != nil {
		return x.providerFailure(r, "transcription", err)
	}
	if r2, hit := x.secretIn(r, tr.Text); hit {
		return r2
	}
	rep, pieces := TranscriptRep(x.Config, tr)
	r.act = actReplace
	r.rep, r.pieces = rep, pieces
	r.about = extract.Describe(extract.Result{Text: tr.Text}, nil, record.DocText, r.doc.RelPath)
	maskAbout(x.redact, &r.about)
	r.title = r.about.Title
	return r
}

// TranscriptRep builds the transcript representation of tr: the transcript
// itself (JSON) as stored content, meta_json per SPEC §5.2, and chunks in
// time windows (chunking.transcript) with time spans, or by size when tr
// has no timestamps (each such chunk cites the whole recording). It masks
// credentials in tr's text and segments first (security.redact).
func TranscriptRep(cfg *config.Config, tr *transcript.Transcript) (store.RepInput, []store.ChunkInput) {
	maskTranscript(masker(cfg), tr)
	ch := cfg.Chunking
	chunks := tr.Chunks(transcript.ChunkOptions{
		SegmentMs: int64(ch.Transcript.SegmentMs), OverlapMs: int64(ch.Transcript.OverlapMs), MaxChars: ch.MaxChars,
		Text: textOptions(cfg),
	})
	pieces := make([]store.ChunkInput, len(chunks))
	for i, c := range chunks {
		sp := c.Span
		if sp.Kind == "" { // no timestamps: the chunk is somewhere in the recording
			sp = record.Time(0, tr.DurationMs)
		}
		pieces[i] = chunkInput(c.Text, record.KindText, sp)
	}
	b, _ := json.Marshal(tr)
	content := string(b)
	meta := tr.MetaJSON()
	return store.RepInput{
		Type: record.RepTranscript, Hash: mediaRepHash(cfg, meta, content), MetaJSON: meta, Content: &content,
	}, pieces
}
