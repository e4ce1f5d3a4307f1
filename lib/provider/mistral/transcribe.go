package mistral

import (
	"context"
	"path"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// transcriptionResponse is the POST /v1/audio/transcriptions reply:
// {model, text, language, segments[{text, start, end, type}], usage}
// with start/end in seconds.
type transcriptionResponse struct {
	Model    string  `json:"model"`
	Text     *string `json:"text"`
	Language *string `json:"language"`
	Segments []struct {
		Text  string   `json:"text"`
		Start *float64 `json:"start"`
		End   *float64 `json:"end"`
	} `json:"segments"`
	Usage struct {
		PromptAudioSeconds *float64 `json:"prompt_audio_seconds"`
	} `json:"usage"`
}

// Transcriber is a transcript.Transcriber over Voxtral.
type Transcriber struct {
	c     *Client
	model string
}

var _ transcript.Transcriber = (*Transcriber)(nil)

// Transcriber returns the transcriber for model (DefaultSTTModel when
// empty).
func (c *Client) Transcriber(model string) *Transcriber {
	if model == "" {
		model = DefaultSTTModel
	}
	return &Transcriber{c: c, model: model}
}

// Provider implements transcript.Transcriber.
func (t *Transcriber) Provider() string { return "mistral" }

// Model implements transcript.Transcriber.
func (t *Transcriber) Model() string { return t.model }

// Transcribe implements transcript.Transcriber. The audio is uploaded as a
// multipart form: model, file, and timestamp_granularities=segment (the
// field repeated per value, as client-ts appendForm sends lists) when
// timestamps are wanted. The language hint is only sent without
// timestamps: Mistral's transcription guide documents the two as not
// combinable, and timestamps are what citations need.
func (t *Transcriber) Transcribe(ctx context.Context, a transcript.Audio) (*transcript.Transcript, error) {
	if len(a.Data) == 0 {
		return nil, errcode.New(errcode.TranscribeFailed, "mistral transcription: %s is empty", a.Name)
	}
	f := provider.NewForm()
	f.Field("model", t.model)
	name := path.Base(a.Name)
	if name == "." || name == "/" || name == "" {
		name = "audio"
	}
	f.File("file", name, a.MIME, a.Data)
	if a.Timestamps {
		f.Field("timestamp_granularities", "segment")
	} else if a.Language != "" {
		f.Field("language", a.Language)
	}
	body, ctype, err := f.Finish()
	preq := provider.Request{Path: "/v1/audio/transcriptions", Op: "transcription"}
	if err != nil {
		return nil, t.c.slow.Errorf(preq, err)
	}
	preq.Body, preq.ContentType = body, ctype
	resp, err := t.c.slow.Do(ctx, preq)
	if err != nil {
		return nil, err
	}
	var out transcriptionResponse
	if err := t.c.slow.DecodeJSON(preq, resp.Body, &out); err != nil {
		return nil, err
	}
	if out.Text == nil {
		return nil, t.c.slow.Malformed(preq, "no text in the reply")
	}
	segs := make([]transcript.Timed, 0, len(out.Segments))
	for i, s := range out.Segments {
		if s.Start == nil || s.End == nil {
			return nil, t.c.slow.Malformed(preq, "segment %d lacks start or end", i)
		}
		segs = append(segs, transcript.Timed{Text: s.Text, Start: *s.Start, End: *s.End})
	}
	lang := a.Language
	if out.Language != nil && *out.Language != "" {
		lang = *out.Language
	}
	model := t.model
	if out.Model != "" {
		model = out.Model
	}
	tr := transcript.FromSegments("mistral", model, lang, *out.Text, segs)
	if d := out.Usage.PromptAudioSeconds; d != nil && *d > 0 {
		tr.DurationMs = max(tr.DurationMs, int64(*d*1000))
	}
	return tr, nil
}
