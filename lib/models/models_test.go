package models

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
	"github.com/dir2mcp/dir2mcp/lib/ocr/tesseract"
	"github.com/dir2mcp/dir2mcp/lib/provider/mistral/mistraltest"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/transcript"
)

func withKey(cfg *config.Config, url string) {
	cfg.Mistral.APIKey = config.Secret{Value: mistraltest.Key, Source: "env:MISTRAL_API_KEY"}
	cfg.Mistral.BaseURL = url
}

func TestOfflineSet(t *testing.T) {
	s, err := Open(config.Default(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if tesseract.Available() {
		if s.OCR == nil || !s.OCRLocal || s.OCR.Provider() != "tesseract" {
			t.Errorf("tesseract is installed but OCR is %v", s.OCR)
		}
	} else if s.OCR != nil || !strings.Contains(s.WhyNoOCR, "tesseract") {
		t.Errorf("no OCR engine expected: %v %q", s.OCR, s.WhyNoOCR)
	}
	if s.STT != nil || !strings.Contains(s.WhyNoSTT, "MISTRAL_API_KEY") || s.Chat != nil || s.TTS != nil || s.DocAnnotator != nil || s.TextAnnotator != nil {
		t.Errorf("offline set has providers: %+v", s)
	}
	var m state.Models
	s.Names(&m)
	if m.Chat != "none (extractive answers)" || !strings.HasPrefix(m.STTModel, "none") {
		t.Errorf("names %+v", m)
	}
}

func TestMistralSetIsCached(t *testing.T) {
	fake := mistraltest.New()
	defer fake.Close()
	cfg := config.Default()
	withKey(cfg, fake.URL)
	dir := t.TempDir()
	s, err := Open(cfg, dir)
	if err != nil {
		t.Fatal(err)
	}
	var m state.Models
	s.Names(&m)
	if m.OCR != "mistral/mistral-ocr-latest" || m.STTProvider != "mistral" || m.STTModel != "voxtral-mini-latest" || m.Chat != "mistral/mistral-small-2506" {
		t.Errorf("names %+v", m)
	}
	pdf, err := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", "digital.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	wav, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "multimodal", "standup.wav"))
	for range 2 {
		res, err := s.OCR.OCR(context.Background(), ocr.Document{Data: pdf, MIME: "application/pdf", Name: "d.pdf"})
		if err != nil || len(res.Pages) != 3 {
			t.Fatalf("ocr: %v %+v", err, res)
		}
		if _, err := s.STT.Transcribe(context.Background(), transcript.Audio{Data: wav, Name: "s.wav", Timestamps: true}); err != nil {
			t.Fatal(err)
		}
	}
	if fake.Calls(mistraltest.OCR) != 1 || fake.Calls(mistraltest.Transcriptions) != 1 {
		t.Errorf("cached engines called the provider %d/%d times", fake.Calls(mistraltest.OCR), fake.Calls(mistraltest.Transcriptions))
	}
	if _, err := s.STTFresh.Transcribe(context.Background(), transcript.Audio{Data: wav, Name: "s.wav", Timestamps: true}); err != nil || fake.Calls(mistraltest.Transcriptions) != 2 {
		t.Errorf("fresh transcription: %v, %d calls", err, fake.Calls(mistraltest.Transcriptions))
	}
	// The cache outlives the set: a new set over the same state dir pays nothing.
	s2, _ := Open(cfg, dir)
	s2.OCR.OCR(context.Background(), ocr.Document{Data: pdf, MIME: "application/pdf", Name: "d.pdf"})
	if fake.Calls(mistraltest.OCR) != 1 {
		t.Error("OCR cache not reused across runs")
	}
	offline, _ := Open(config.Default(), t.TempDir())
	if offline.Fingerprint() == s.Fingerprint() {
		t.Error("adding a key does not change the fingerprint")
	}
}

func TestChatAndSTTChoices(t *testing.T) {
	cfg := config.Default()
	withKey(cfg, "http://127.0.0.1:1")
	cfg.RAG.GenerateAnswer = false
	s, err := Open(cfg, t.TempDir())
	if err != nil || s.Chat != nil || s.WhyNoChat == "" {
		t.Errorf("generate_answer false: %v %v", err, s.Chat)
	}
	cfg.RAG.GenerateAnswer, cfg.RAG.ChatProvider = true, "openai"
	if _, err := Open(cfg, t.TempDir()); errcode.As(err).Field != "openai.chat_model" {
		t.Errorf("openai without a model: %v", err)
	}
	cfg.OpenAI.ChatModel = "gpt-test"
	if s, err := Open(cfg, t.TempDir()); err != nil || s.ChatProvider != "openai" || s.ChatModel != "gpt-test" || s.TextAnnotator == nil {
		t.Errorf("openai chat: %v %+v", err, s)
	}
	cfg = config.Default()
	cfg.RAG.ChatProvider = "mistral"
	if _, err := Open(cfg, t.TempDir()); errcode.Of(err) != errcode.ConfigInvalid {
		t.Errorf("mistral chat without a key: %v", err)
	}
	cfg = config.Default()
	cfg.STT.Provider = "elevenlabs"
	s, _ = Open(cfg, t.TempDir())
	if s.STT != nil || !strings.Contains(s.WhyNoSTT, "ELEVENLABS_API_KEY") {
		t.Errorf("elevenlabs without a key: %q", s.WhyNoSTT)
	}
	cfg.STT.ElevenLabs.APIKey = config.Secret{Value: "el-key-0123456789abcdef", Source: "env:ELEVENLABS_API_KEY"}
	s, _ = Open(cfg, t.TempDir())
	if s.STT == nil || s.STT.Provider() != "elevenlabs" || s.STT.Model() != "scribe_v1" || s.TTS == nil {
		t.Errorf("elevenlabs: %+v", s)
	}
}
