package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// script answers prompts in order, recording whether each was masked.
type script struct {
	t       *testing.T
	answers []string
	masked  []bool
}

func (s *script) next(masked bool) string {
	if len(s.answers) == 0 {
		s.t.Fatal("more prompts than answers")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	s.masked = append(s.masked, masked)
	return a
}

func (s *script) Secret(string) (string, error) { return s.next(true), nil }
func (s *script) Line(_, def string) (string, error) {
	if a := s.next(false); a != "" {
		return a, nil
	}
	return def, nil
}

const (
	mistralKey = "mk-wizard-0123456789abcdef"
	elevenKey  = "el-wizard-0123456789abcdef"
)

func TestWizardWritesConfigAndStoresKeys(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	sc := &script{t: t, answers: []string{mistralKey, "elevenlabs", elevenKey, "", "auto", "file"}}
	w := &wizard{p: sc, out: &out, root: root, cfgPath: filepath.Join(root, config.DefaultFileName)}
	if err := w.run(); err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, true, false, false, false}; !slices.Equal(sc.masked, want) {
		t.Errorf("masked prompts %v, want %v (keys masked)", sc.masked, want)
	}
	y, _ := os.ReadFile(w.cfgPath)
	for _, leak := range []string{mistralKey, elevenKey} {
		if strings.Contains(string(y), leak) || strings.Contains(out.String(), leak) {
			t.Errorf("a key leaked into the config or the output")
		}
	}
	cfg, _, err := config.Load(config.LoadOptions{Dir: root, Env: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.STT.Provider != "elevenlabs" || cfg.Embed.Provider != "auto" || cfg.Ingest.PDF.Mode != "auto" || cfg.Secrets.Provider != "file" {
		t.Errorf("config %+v", cfg)
	}
	if cfg.Mistral.APIKey.Value != mistralKey || cfg.STT.ElevenLabs.APIKey.Value != elevenKey || !strings.HasPrefix(cfg.Mistral.APIKey.Source, "file:") {
		t.Errorf("keys not read back from the secrets file: %s %s", cfg.Mistral.APIKey.Describe(), cfg.STT.ElevenLabs.APIKey.Describe())
	}
	fi, err := os.Stat(filepath.Join(root, ".dir2mcp", "secret.env"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets file: %v %v", err, fi)
	}
}

func TestWizardOfflineAndBadAnswers(t *testing.T) {
	root := t.TempDir()
	var out bytes.Buffer
	w := &wizard{p: &script{t: t, answers: []string{"", "", "", ""}}, out: &out, root: root, cfgPath: filepath.Join(root, config.DefaultFileName)}
	if err := w.run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".dir2mcp")); err == nil {
		t.Error("offline setup created a secrets file")
	}
	w = &wizard{p: &script{t: t, answers: []string{"", "whisper", "deepgram", "google"}}, out: &out, root: root, cfgPath: w.cfgPath}
	if err := w.run(); errcode.Of(err) != errcode.ConfigInvalid {
		t.Errorf("three bad answers: %v", err)
	}
}

func TestPromptMissingSetsSessionSecrets(t *testing.T) {
	cfg := config.Default()
	missing := []config.Missing{
		{KeyPath: "mistral.api_key", EnvVar: "MISTRAL_API_KEY", Reason: "embed.provider is mistral"},
		{KeyPath: "stt.mistral.api_key", EnvVar: "MISTRAL_API_KEY", Reason: "ingest.audio.mode is on"},
	}
	var out bytes.Buffer
	sc := &script{t: t, answers: []string{mistralKey}}
	if err := promptMissing(sc, &out, cfg, missing); err != nil {
		t.Fatal(err)
	}
	if len(sc.masked) != 1 || !sc.masked[0] {
		t.Errorf("prompts %v: want one masked prompt per variable", sc.masked)
	}
	if cfg.Mistral.APIKey.Value != mistralKey || cfg.STT.Mistral.APIKey.Source != "session" || strings.Contains(out.String(), mistralKey) {
		t.Errorf("secrets %s %s; output %q", cfg.Mistral.APIKey.Describe(), cfg.STT.Mistral.APIKey.Describe(), out.String())
	}
	err := promptMissing(&script{t: t, answers: []string{""}}, &out, config.Default(), missing[:1])
	if e := errcode.As(err); e.Code != errcode.ConfigInvalid || !strings.Contains(e.Message, "Missing MISTRAL_API_KEY\nSet env: MISTRAL_API_KEY=...\nOr run: dir2mcp config init") {
		t.Errorf("empty answer: %v", err)
	}
}
