package elevenlabs

import (
	"context"
	"path"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// sttResponse is the POST /v1/speech-to-text reply
// (SpeechToTextChunkResponseModel): language_code, language_probability,
// text, words[{text, start, end (seconds), type: word|spacing|audio_event,
// speaker_id}].
type sttResponse struct {
	LanguageCode string  `json:"language_code"`
	Text         *string `json:"text"`
	Words        []struct {
		Text      string   `json:"text"`
		Start     *float64 `json:"start"`
		End       *float64 `json:"end"`
		Type      string   `json:"type"`
		SpeakerID string   `json:"speaker_id"`
	} `json:"words"`
}

// Transcriber is a transcript.Transcriber over Scribe.
type Transcriber struct {
	c     *Client
	model string
}

var _ transcript.Transcriber = (*Transcriber)(nil)

// Transcriber returns the transcriber for model; "" and "scribe" mean
// DefaultSTTModel.
func (c *Client) Transcriber(model string) *Transcriber {
	if model == "" || model == "scribe" {
		model = DefaultSTTModel
	}
	return &Transcriber{c: c, model: model}
}

// Provider implements transcript.Transcriber.
func (t *Transcriber) Provider() string { return "elevenlabs" }

// Model implements transcript.Transcriber.
func (t *Transcriber) Model() string { return t.model }

// Transcribe implements transcript.Transcriber: a multipart form with
// model_id, file, timestamps_granularity ("word" with timestamps, else
// "none") and language_code when hinted. Words are grouped into segments
// by transcript.FromWords.
func (t *Transcriber) Transcribe(ctx context.Context, a transcript.Audio) (*transcript.Transcript, error) {
	if len(a.Data) == 0 {
		return nil, errcode.New(errcode.TranscribeFailed, "elevenlabs transcription: %s is empty", a.Name)
	}
	f := provider.NewForm()
	f.Field("model_id", t.model)
	name := path.Base(a.Name)
	if name == "." || name == "/" || name == "" {
		name = "audio"
	}
	f.File("file", name, a.MIME, a.Data)
	if a.Timestamps {
		f.Field("timestamps_granularity", "word")
	} else {
		f.Field("timestamps_granularity", "none")
	}
	if a.Language != "" {
		f.Field("language_code", a.Language)
	}
	preq := provider.Request{Path: "/v1/speech-to-text", Op: "transcription"}
	body, ctype, err := f.Finish()
	if err != nil {
		return nil, t.c.http.Errorf(preq, err)
	}
	preq.Body, preq.ContentType = body, ctype
	resp, err := t.c.http.Do(ctx, preq)
	if err != nil {
		return nil, err
	}
	var out sttResponse
	if err := t.c.http.DecodeJSON(preq, resp.Body, &out); err != nil {
		return nil, err
	}
	if out.Text == nil {
		return nil, t.c.http.Malformed(preq, "no text in the reply")
	}
	words := make([]transcript.Timed, 0, len(out.Words))
	for _, w := range out.Words {
		if w.Start == nil || w.End == nil {
			// Without times a word carries no provenance; the text still
			// holds it.
			continue
		}
		words = append(words, transcript.Timed{Text: w.Text, Start: *w.Start, End: *w.End, Type: w.Type, Speaker: w.SpeakerID})
	}
	lang := out.LanguageCode
	if lang == "" {
		lang = a.Language
	}
	return transcript.FromWords("elevenlabs", t.model, lang, *out.Text, words), nil
}
