package elevenlabs

import (
	"context"
	"net/url"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// Speech is synthesized audio.
type Speech struct {
	Data []byte
	MIME string // audio/mpeg or audio/wav
}

// SpeechRequest asks for text to be spoken.
type SpeechRequest struct {
	Text    string
	VoiceID string // default DefaultVoiceID
	Model   string // default DefaultTTSModel
	Format  string // "mp3" (default) or "wav"
}

// outputFormats maps ask_audio's format to ElevenLabs' output_format query
// values (codec_samplerate[_bitrate]); 44.1 kHz WAV needs a paid tier, so
// WAV uses 22.05 kHz.
var outputFormats = map[string]struct{ query, mime string }{
	"mp3": {"mp3_44100_128", "audio/mpeg"},
	"wav": {"wav_22050", "audio/wav"},
}

// Speak synthesizes req (POST /v1/text-to-speech/{voice_id}?output_format=…
// with JSON {text, model_id}); the reply body is the audio itself.
func (c *Client) Speak(ctx context.Context, req SpeechRequest) (*Speech, error) {
	if strings.TrimSpace(req.Text) == "" {
		return nil, errcode.FieldError(errcode.MissingField, "text", "elevenlabs: nothing to speak")
	}
	if req.Format == "" {
		req.Format = "mp3"
	}
	f, ok := outputFormats[req.Format]
	if !ok {
		return nil, errcode.FieldError(errcode.InvalidField, "format", "elevenlabs: audio format %q is not mp3 or wav", req.Format)
	}
	if req.VoiceID == "" {
		req.VoiceID = DefaultVoiceID
	}
	if req.Model == "" {
		req.Model = DefaultTTSModel
	}
	body := map[string]string{"text": req.Text, "model_id": req.Model}
	preq := provider.Request{
		Path:  "/v1/text-to-speech/" + url.PathEscape(req.VoiceID),
		Query: url.Values{"output_format": {f.query}},
		Op:    "text-to-speech", Accept: f.mime,
	}
	resp, err := c.http.PostRaw(ctx, preq, body)
	if err != nil {
		return nil, err
	}
	if len(resp.Body) == 0 {
		return nil, c.http.Malformed(preq, "empty audio")
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "text/") {
		return nil, c.http.Malformed(preq, "expected audio, got %s", ct)
	}
	return &Speech{Data: resp.Body, MIME: f.mime}, nil
}
