// Package transcript is dir2mcp's one transcript format (SPEC §8.2): every
// speech-to-text provider's output — Mistral's timed segments, ElevenLabs'
// timed words — is normalised into a Transcript of millisecond segments,
// which is chunked into overlapping time windows with time spans (SPEC
// §7.4 C, §7.5), or by size without spans when there are no timestamps.
package transcript

import (
	"context"
	"encoding/json"
)

// Segment is a stretch of speech.
type Segment struct {
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	Text    string `json:"text"`
	Speaker string `json:"speaker,omitempty"`
}

// Transcript is a normalised speech-to-text result.
type Transcript struct {
	Provider string `json:"provider"` // mistral | elevenlabs
	Model    string `json:"model"`
	Language string `json:"language,omitempty"`
	// DurationMs is the audio's length when known (else the end of the
	// last segment).
	DurationMs int64 `json:"duration_ms,omitempty"`
	// Timestamps reports whether Segments carry real times.
	Timestamps bool `json:"timestamps"`
	// Text is the whole transcript.
	Text     string    `json:"text"`
	Segments []Segment `json:"segments,omitempty"`
}

// Audio is a recording to transcribe.
type Audio struct {
	Data []byte
	// Name is the file name sent to the provider (its extension tells the
	// format) and used in error messages.
	Name string
	MIME string // e.g. audio/wav; "" lets the provider sniff
	// Language is an optional ISO 639 hint ("en").
	Language string
	// Timestamps asks for timed segments or words.
	Timestamps bool
}

// Transcriber turns audio into a Transcript. Implementations are safe for
// concurrent use.
type Transcriber interface {
	Provider() string
	Model() string
	// Transcribe returns the normalised transcript. Errors are
	// *errcode.Error.
	Transcribe(ctx context.Context, a Audio) (*Transcript, error)
}

// Meta is the representation meta_json of a transcript (SPEC §5.2).
type Meta struct {
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Timestamps bool   `json:"timestamps"`
	Language   string `json:"language,omitempty"`
	DurationMs int64  `json:"duration_ms,omitempty"`
}

// Meta returns t's meta_json fields.
func (t *Transcript) Meta() Meta {
	return Meta{Provider: t.Provider, Model: t.Model, Timestamps: t.Timestamps, Language: t.Language, DurationMs: t.DurationMs}
}

// MetaJSON returns Meta encoded as JSON.
func (t *Transcript) MetaJSON() string {
	b, _ := json.Marshal(t.Meta())
	return string(b)
}
