package cli

import (
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
)

// providers resolves the OCR, speech-to-text, chat, annotation and
// text-to-speech providers of the configuration (once per command).
func (e *env) providers() (*models.Set, error) {
	if e.models != nil {
		return e.models, nil
	}
	s, err := models.Open(e.cfg, e.dir.Path)
	if err != nil {
		return nil, err
	}
	e.models = s
	return s, nil
}

// media returns the engines the indexer turns PDFs, images and audio into
// text with.
func (e *env) media() (*indexer.Media, error) {
	s, err := e.providers()
	if err != nil {
		return nil, err
	}
	return mediaOf(s, e.sttTimestamps()), nil
}

func mediaOf(s *models.Set, timestamps bool) *indexer.Media {
	return &indexer.Media{OCR: s.OCR, OCRLocal: s.OCRLocal, WhyNoOCR: s.WhyNoOCR, STT: s.STT, Timestamps: timestamps, WhyNoSTT: s.WhyNoSTT}
}

// sttTimestamps is stt.<provider>.timestamps.
func (e *env) sttTimestamps() bool {
	if e.cfg.STT.Provider == "elevenlabs" {
		return e.cfg.STT.ElevenLabs.Timestamps
	}
	return e.cfg.STT.Mistral.Timestamps
}

// modelNames names the models in use for stats and corpus.json.
func (e *env) modelNames(embedders map[string]string) state.Models {
	m := state.Models{EmbedText: embedders[record.KindText], EmbedCode: embedders[record.KindCode], STTProvider: e.cfg.STT.Provider}
	if s, err := e.providers(); err == nil {
		s.Names(&m)
	} else {
		m.OCR, m.STTModel, m.Chat = "none", "none", "none"
	}
	return m
}
