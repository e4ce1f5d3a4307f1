package config

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestExampleYAMLWith(t *testing.T) {
	y, err := ExampleYAMLWith(map[string]string{
		"embed.provider": "mistral", "stt.provider": "elevenlabs", "ingest.pdf.mode": "auto",
		"secrets.provider": "file", "server.listen": "127.0.0.1:8080", "rag.max_context_chars": "12000",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(y, "  provider: mistral        # auto|local|local-full|hash") {
		t.Errorf("comment column not kept:\n%s", y)
	}
	cfg, _, err := loadYAML(t, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Embed.Provider != "mistral" || cfg.STT.Provider != "elevenlabs" || cfg.Ingest.PDF.Mode != "auto" ||
		cfg.Secrets.Provider != "file" || cfg.Server.Listen != "127.0.0.1:8080" || cfg.RAG.MaxContextChars != 12000 {
		t.Errorf("values not applied: %+v", cfg)
	}
	// Everything else keeps its default.
	if cfg.Ingest.Images.Mode != "ocr_auto" || cfg.Mistral.APIKey.Ref != "${MISTRAL_API_KEY}" {
		t.Errorf("defaults changed")
	}
	for _, bad := range []string{"rag.system_prompt", "no.such.key", "mistral"} {
		if _, err := ExampleYAMLWith(map[string]string{bad: "x"}); errcode.Of(err) != errcode.ConfigInvalid {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
