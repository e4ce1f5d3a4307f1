// Package models resolves a configuration to the model providers dir2mcp
// uses beyond embeddings (lib/models/embedders): OCR for PDFs and images,
// speech-to-text for audio, chat for answers and annotations, and
// text-to-speech for ask_audio. Paid and slow results (OCR, transcripts,
// annotations) are cached under the state directory, so indexing the same
// bytes twice never calls a provider twice.
//
// Choices:
//   - OCR: Mistral OCR when a Mistral key is set; else the offline
//     tesseract engine when it is installed; else none.
//   - Speech-to-text: stt.provider (mistral or elevenlabs) when its key is
//     set; else none, with the reason.
//   - Chat: rag.chat_provider (auto = mistral when a key is set); none when
//     rag.generate_answer is false.
//   - Annotations: Mistral document annotations for PDFs and images (with a
//     key), the chat model for text.
//   - Text-to-speech: ElevenLabs when its key is set.
package models

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/annotation"
	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/ocr/tesseract"
	"github.com/dir2mcp/dir2mcp/lib/provider/elevenlabs"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral"
	"github.com/dir2mcp/dir2mcp/lib/provider/ollama"
	"github.com/dir2mcp/dir2mcp/lib/provider/openai"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

// Set is the providers a configuration resolves to. Nil engines are not
// available; the matching Why* field says why and how to enable them.
type Set struct {
	// OCR recognises PDFs and images (cached).
	OCR ocr.Engine
	// OCRLocal reports that OCR is the offline engine: PDF pages with a
	// text layer keep it, since tesseract reads rendered text worse than
	// the PDF states it.
	OCRLocal bool
	WhyNoOCR string

	// STT transcribes audio (cached when ingest.audio.cache is true);
	// STTFresh transcribes anew and refreshes the cache.
	STT      transcript.Transcriber
	STTFresh transcript.Transcriber
	WhyNoSTT string

	// Chat generates answers; ChatModel is the model it is asked for.
	Chat         chat.Chatter
	ChatProvider string
	ChatModel    string
	WhyNoChat    string

	// DocAnnotator annotates PDFs and images, TextAnnotator everything
	// else (both cached).
	DocAnnotator  annotation.Annotator
	TextAnnotator annotation.Annotator
	WhyNoAnnotate string

	// TTS speaks answers (ask_audio).
	TTS      *elevenlabs.Client
	WhyNoTTS string

	mistral    *mistral.Client
	elevenlabs *elevenlabs.Client
}

// Open resolves cfg. Cached engines keep their results under stateDir. It
// fails only on configuration errors (CONFIG_INVALID), such as an explicit
// chat provider without a model.
func Open(cfg *config.Config, stateDir string) (*Set, error) {
	s := &Set{}
	store := cache.Open(stateDir)
	if cfg.Mistral.APIKey.IsSet() {
		c, err := mistral.New(mistral.Options{BaseURL: cfg.Mistral.BaseURL, APIKey: cfg.Mistral.APIKey})
		if err != nil {
			return nil, err
		}
		s.mistral = c
	}
	if el := cfg.STT.ElevenLabs; el.APIKey.IsSet() {
		c, err := elevenlabs.New(elevenlabs.Options{BaseURL: el.BaseURL, APIKey: el.APIKey})
		if err != nil {
			return nil, err
		}
		s.elevenlabs = c
	}
	s.openOCR(cfg, store)
	if err := s.openSTT(cfg, store); err != nil {
		return nil, err
	}
	if err := s.openChat(cfg); err != nil {
		return nil, err
	}
	s.openAnnotators(store)
	s.TTS = s.elevenlabs
	if s.TTS == nil {
		s.WhyNoTTS = "text-to-speech needs ElevenLabs: set ELEVENLABS_API_KEY"
	}
	return s, nil
}

func (s *Set) openOCR(cfg *config.Config, store *cache.Store) {
	switch {
	case s.mistral != nil:
		s.OCR = ocr.Cached(s.mistral.OCR(cfg.Mistral.OCRModel), store)
	case tesseract.Available():
		e, err := tesseract.New(tesseract.Options{})
		if err != nil {
			s.WhyNoOCR = errcode.As(err).Message
			return
		}
		s.OCR, s.OCRLocal = ocr.Cached(e, store), true
	default:
		s.WhyNoOCR = "no OCR engine: set MISTRAL_API_KEY for Mistral OCR, or install tesseract for offline OCR (Debian/Ubuntu: apt-get install tesseract-ocr tesseract-ocr-eng poppler-utils)"
	}
}

func (s *Set) openSTT(cfg *config.Config, store *cache.Store) error {
	var tr transcript.Transcriber
	switch cfg.STT.Provider {
	case "elevenlabs":
		if s.elevenlabs == nil {
			s.WhyNoSTT = "no speech-to-text provider: stt.provider is elevenlabs but ELEVENLABS_API_KEY is not set"
			return nil
		}
		tr = s.elevenlabs.Transcriber(cfg.STT.ElevenLabs.Model)
	default:
		key := cfg.MistralSTTKey()
		if !key.IsSet() {
			s.WhyNoSTT = "no speech-to-text provider: set MISTRAL_API_KEY (stt.provider mistral), or ELEVENLABS_API_KEY with stt.provider elevenlabs"
			return nil
		}
		base := cfg.STT.Mistral.BaseURL
		if base == "" {
			base = cfg.Mistral.BaseURL
		}
		c, err := mistral.New(mistral.Options{BaseURL: base, APIKey: key})
		if err != nil {
			return err
		}
		tr = c.Transcriber(cfg.STT.Mistral.Model)
	}
	s.STT, s.STTFresh = tr, tr
	if cfg.Ingest.Audio.Cache {
		s.STT, s.STTFresh = transcript.Cached(tr, store), transcript.Refreshed(tr, store)
	}
	return nil
}

func (s *Set) openChat(cfg *config.Config) error {
	p := cfg.RAG.ChatProvider
	if !cfg.RAG.GenerateAnswer {
		s.WhyNoChat = "rag.generate_answer is false"
		return nil
	}
	if p == "" || p == "auto" {
		p = "none"
		if s.mistral != nil {
			p = "mistral"
		}
	}
	switch p {
	case "none":
		s.WhyNoChat = "no chat model: set MISTRAL_API_KEY, or rag.chat_provider openai|ollama with a chat_model"
	case "mistral":
		if s.mistral == nil {
			return errcode.FieldError(errcode.ConfigInvalid, "mistral.api_key", "rag.chat_provider is mistral but MISTRAL_API_KEY is not set")
		}
		s.Chat, s.ChatModel = s.mistral, cfg.Mistral.ChatModel
	case "openai":
		if strings.TrimSpace(cfg.OpenAI.ChatModel) == "" {
			return errcode.FieldError(errcode.ConfigInvalid, "openai.chat_model", "rag.chat_provider is openai but openai.chat_model is empty")
		}
		c, err := openai.New(openai.Options{BaseURL: cfg.OpenAI.BaseURL, APIKey: cfg.OpenAI.APIKey})
		if err != nil {
			return err
		}
		s.Chat, s.ChatModel = c, cfg.OpenAI.ChatModel
	case "ollama":
		if strings.TrimSpace(cfg.Ollama.ChatModel) == "" {
			return errcode.FieldError(errcode.ConfigInvalid, "ollama.chat_model", "rag.chat_provider is ollama but ollama.chat_model is empty")
		}
		c, err := ollama.New(ollama.Options{BaseURL: cfg.Ollama.BaseURL})
		if err != nil {
			return err
		}
		s.Chat, s.ChatModel = c, cfg.Ollama.ChatModel
	default:
		return errcode.FieldError(errcode.ConfigInvalid, "rag.chat_provider", "rag.chat_provider %q is not one of auto, mistral, openai, ollama, none", p)
	}
	if s.Chat != nil {
		s.ChatProvider = p
	}
	return nil
}

func (s *Set) openAnnotators(store *cache.Store) {
	if s.mistral != nil {
		s.DocAnnotator = annotation.Cached(s.mistral.Annotator(""), store)
	}
	if s.Chat != nil {
		s.TextAnnotator = annotation.Cached(&annotation.ChatAnnotator{Chat: s.Chat, Name: s.ChatProvider, ModelID: s.ChatModel}, store)
	}
	if s.DocAnnotator == nil && s.TextAnnotator == nil {
		s.WhyNoAnnotate = "no annotation model: set MISTRAL_API_KEY (or a chat provider, for text documents)"
	}
}

// Names fills the OCR, speech-to-text and chat entries of m (SPEC §4.4
// "models"), naming what is missing when a provider is not configured.
func (s *Set) Names(m *state.Models) {
	m.OCR, m.STTModel, m.Chat = "none (no OCR engine)", "none (no STT provider configured)", "none (extractive answers)"
	if s.OCR != nil {
		m.OCR = s.OCR.Provider() + "/" + s.OCR.Model()
	}
	if s.STT != nil {
		m.STTProvider, m.STTModel = s.STT.Provider(), s.STT.Model()
	}
	if s.Chat != nil {
		m.Chat = s.ChatProvider + "/" + s.ChatModel
	}
}

// Fingerprint identifies the engines that shape the index (OCR and
// speech-to-text, or their absence): the index policy includes it, so
// configuring a provider re-processes the documents that waited for one.
func (s *Set) Fingerprint() string {
	h := sha256.New()
	if s.OCR != nil {
		fmt.Fprintf(h, "ocr=%s/%s\x00", s.OCR.Provider(), s.OCR.Model())
	}
	if s.STT != nil {
		fmt.Fprintf(h, "stt=%s/%s\x00", s.STT.Provider(), s.STT.Model())
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
