// Package catalog resolves the configured embedder (embed.provider) to a
// concrete embed.Embedder per index kind.
package catalog

import (
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Offline is the provider used when nothing else is configured.
const Offline = "hash"

// Resolve returns the provider name embed.provider resolves to: "auto"
// becomes the offline default (a provider with an API key is chosen by
// provider-aware builds; see docs/configuration.md).
func Resolve(cfg *config.Config) string {
	p := cfg.Embed.Provider
	if p == "" || p == "auto" {
		return Offline
	}
	return p
}

// Open returns the embedders for the text and code indexes.
func Open(cfg *config.Config) (map[string]embed.Embedder, error) {
	switch p := Resolve(cfg); p {
	case "hash":
		e, err := hashing.New(hashing.DefaultDim)
		if err != nil {
			return nil, err
		}
		return map[string]embed.Embedder{record.KindText: e, record.KindCode: e}, nil
	default:
		return nil, errcode.FieldError(errcode.ConfigInvalid, "embed.provider",
			"embed.provider %q is not available in this build (available: auto, hash)", p)
	}
}
