package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/answer"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/provider/elevenlabs"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSpokenChars bounds the text sent to text-to-speech.
const maxSpokenChars = 4000

type askAudioResult struct {
	answer.Result
	AudioMIMEType string `json:"audio_mime_type"`
	AudioBytes    int    `json:"audio_bytes"`
}

var askAudioParams = []param{
	str("question", "the question to answer from the indexed content").need(),
	str("voice_id", "ElevenLabs voice id (default: a premade voice)"),
	oneOf("format", "audio format of the spoken answer", []string{"mp3", "wav"}, "mp3"),
}

func (s *Server) askAudio(ctx context.Context, a *args) (toolOut, error) {
	question, voice, format := a.str("question"), a.str("voice_id"), a.str("format")
	p := s.Providers
	if p == nil || p.TTS == nil {
		why := "text-to-speech needs ElevenLabs: set ELEVENLABS_API_KEY"
		if p != nil && p.WhyNoTTS != "" {
			why = p.WhyNoTTS
		}
		return toolOut{}, unavailable(why)
	}
	res, err := s.asker(ctx).Ask(ctx, retrieve.Request{Query: question, K: s.Config.RAG.KDefault, Within: corpus.ScopeFrom(ctx).Paths()}, answer.ModeAnswer)
	if err != nil {
		return toolOut{}, err
	}
	spoken, _ := clipText(answer.StripCitations(res.Answer), maxSpokenChars)
	speech, err := p.TTS.Speak(ctx, elevenlabs.SpeechRequest{Text: spoken, VoiceID: voice, Format: format})
	if err != nil {
		return toolOut{}, err
	}
	out := askAudioResult{Result: res, AudioMIMEType: speech.MIME, AudioBytes: len(speech.Data)}
	summary := strings.TrimSpace(res.Answer) + fmt.Sprintf("\n\n(spoken answer attached: %s, %d bytes)", speech.MIME, len(speech.Data))
	return toolOut{out: out, summary: summary, files: hitFiles(res.Hits),
		extra: []mcp.Content{&mcp.AudioContent{Data: speech.Data, MIMEType: speech.MIME}}}, nil
}
