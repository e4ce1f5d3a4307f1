package config

import (
	"reflect"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestMissingCredentials(t *testing.T) {
	load := func(m map[string]string) *Config {
		cfg, _, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(m)})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	// Offline defaults need nothing.
	if m := MissingCredentials(load(nil)); len(m) != 0 {
		t.Errorf("defaults report missing %v", m)
	}
	m := MissingCredentials(load(map[string]string{"DIR2MCP_EMBED_PROVIDER": "mistral", "DIR2MCP_INGEST_IMAGES_MODE": "ocr_on"}))
	want := []Missing{{KeyPath: "mistral.api_key", EnvVar: "MISTRAL_API_KEY",
		Reason: "embed.provider is mistral; ingest.images.mode is ocr_on (OCR uses Mistral)"}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v", m)
	}
	m = MissingCredentials(load(map[string]string{"DIR2MCP_RAG_CHAT_PROVIDER": "mistral"}))
	if len(m) != 1 || m[0].KeyPath != "mistral.api_key" || m[0].Reason != "rag.chat_provider is mistral" {
		t.Errorf("chat provider: %+v", m)
	}
	if m := MissingCredentials(load(map[string]string{"DIR2MCP_RAG_CHAT_PROVIDER": "mistral", "DIR2MCP_RAG_GENERATE_ANSWER": "false"})); len(m) != 0 {
		t.Errorf("no generation needs no chat key: %+v", m)
	}
	if m := MissingCredentials(load(map[string]string{"DIR2MCP_EMBED_PROVIDER": "mistral", "MISTRAL_API_KEY": "k"})); len(m) != 0 {
		t.Errorf("key present but missing %v", m)
	}
	m = MissingCredentials(load(map[string]string{"DIR2MCP_INGEST_AUDIO_MODE": "on", "DIR2MCP_STT_PROVIDER": "elevenlabs", "MISTRAL_API_KEY": "k"}))
	if len(m) != 1 || m[0].KeyPath != "stt.elevenlabs.api_key" || m[0].EnvVar != "ELEVENLABS_API_KEY" {
		t.Errorf("elevenlabs: %+v", m)
	}
	if m := MissingCredentials(load(map[string]string{"DIR2MCP_INGEST_AUDIO_MODE": "on", "MISTRAL_API_KEY": "k"})); len(m) != 0 {
		t.Errorf("mistral stt with key: %+v", m)
	}
	// A custom reference names its own variable.
	cfg, _, err := loadYAML(t, "embed:\n  provider: mistral\nmistral:\n  api_key: ${TEAM_KEY}\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := MissingCredentials(cfg); len(m) != 1 || m[0].EnvVar != "TEAM_KEY" {
		t.Errorf("custom ref: %+v", m)
	}
}

func TestFormatMissing(t *testing.T) {
	one := []Missing{{KeyPath: "mistral.api_key", EnvVar: "MISTRAL_API_KEY"}}
	want := "ERROR: CONFIG_INVALID: Missing MISTRAL_API_KEY\nSet env: MISTRAL_API_KEY=...\nOr run: dir2mcp config init"
	if got := FormatMissing(one); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	two := append(one, Missing{KeyPath: "stt.mistral.api_key", EnvVar: "MISTRAL_API_KEY"}, Missing{KeyPath: "stt.elevenlabs.api_key", EnvVar: "ELEVENLABS_API_KEY"})
	want = "ERROR: CONFIG_INVALID: Missing MISTRAL_API_KEY, ELEVENLABS_API_KEY\nSet env: MISTRAL_API_KEY=... ELEVENLABS_API_KEY=...\nOr run: dir2mcp config init"
	if got := FormatMissing(two); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if FormatMissing(nil) != "" || MissingError(nil) != nil {
		t.Errorf("empty input must give nothing")
	}
	if err := MissingError(one); errcode.ExitCode(err) != errcode.ExitConfigInvalid {
		t.Errorf("exit code %d", errcode.ExitCode(err))
	}
}
