package config

import (
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Missing is a credential that an enabled feature requires and no source
// provides (SPEC §2.5 preflight).
type Missing struct {
	KeyPath string // secret key, e.g. "mistral.api_key"
	EnvVar  string // variable that would provide it, e.g. "MISTRAL_API_KEY"
	Reason  string // what requires it, e.g. "embed.provider is mistral"
}

// MistralSTTKey returns the key for Mistral speech-to-text:
// stt.mistral.api_key, or mistral.api_key when that one is unset.
func (c *Config) MistralSTTKey() Secret {
	if c.STT.Mistral.APIKey.IsSet() {
		return c.STT.Mistral.APIKey
	}
	return c.Mistral.APIKey
}

// MissingCredentials lists the credentials that the config explicitly
// requires but lacks:
//   - embed.provider mistral needs a Mistral key;
//   - rag.chat_provider mistral (with rag.generate_answer) needs a Mistral key;
//   - ingest.images.mode ocr_on needs a Mistral key (OCR);
//   - ingest.audio.mode on needs the key of stt.provider.
//
// Modes that merely allow a provider (embed.provider auto, rag.chat_provider auto, pdf ocr/auto,
// images ocr_auto, audio auto) are not requirements: without a key dir2mcp
// stays offline and such documents wait for a provider.
func MissingCredentials(cfg *Config) []Missing {
	var out []Missing
	add := func(path string, s Secret, reason string) {
		for i := range out {
			if out[i].KeyPath == path {
				out[i].Reason += "; " + reason
				return
			}
		}
		env := s.EnvName()
		if env == "" {
			env = leafByPath[path].env
		}
		out = append(out, Missing{KeyPath: path, EnvVar: env, Reason: reason})
	}
	if !cfg.Mistral.APIKey.IsSet() {
		if cfg.Embed.Provider == "mistral" {
			add("mistral.api_key", cfg.Mistral.APIKey, "embed.provider is mistral")
		}
		if cfg.RAG.ChatProvider == "mistral" && cfg.RAG.GenerateAnswer {
			add("mistral.api_key", cfg.Mistral.APIKey, "rag.chat_provider is mistral")
		}
		if cfg.Ingest.Images.Mode == "ocr_on" {
			add("mistral.api_key", cfg.Mistral.APIKey, "ingest.images.mode is ocr_on (OCR uses Mistral)")
		}
	}
	if cfg.Ingest.Audio.Mode == "on" {
		switch cfg.STT.Provider {
		case "mistral":
			if k := cfg.MistralSTTKey(); !k.IsSet() {
				add("stt.mistral.api_key", cfg.STT.Mistral.APIKey, "ingest.audio.mode is on with stt.provider mistral")
			}
		case "elevenlabs":
			if k := cfg.STT.ElevenLabs.APIKey; !k.IsSet() {
				add("stt.elevenlabs.api_key", k, "ingest.audio.mode is on with stt.provider elevenlabs")
			}
		}
	}
	return out
}

// MissingError returns the CONFIG_INVALID error for m ("Missing
// MISTRAL_API_KEY"), or nil when m is empty.
func MissingError(m []Missing) error {
	if len(m) == 0 {
		return nil
	}
	return &errcode.Error{Code: errcode.ConfigInvalid, Field: m[0].KeyPath,
		Message: "Missing " + strings.Join(missingEnvs(m), ", ")}
}

// FormatMissing renders m as the SPEC §3.3 non-interactive error, without
// a trailing newline:
//
//	ERROR: CONFIG_INVALID: Missing MISTRAL_API_KEY
//	Set env: MISTRAL_API_KEY=...
//	Or run: dir2mcp config init
//
// It returns "" when m is empty.
func FormatMissing(m []Missing) string {
	if len(m) == 0 {
		return ""
	}
	envs := missingEnvs(m)
	set := make([]string, len(envs))
	for i, e := range envs {
		set[i] = e + "=..."
	}
	return "ERROR: " + MissingError(m).Error() + "\nSet env: " + strings.Join(set, " ") + "\nOr run: dir2mcp config init"
}

// missingEnvs lists m's variables once each, in order.
func missingEnvs(m []Missing) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range m {
		if !seen[x.EnvVar] {
			seen[x.EnvVar] = true
			out = append(out, x.EnvVar)
		}
	}
	return out
}
