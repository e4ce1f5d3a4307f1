// Package embedders resolves the configured embedder (embed.provider) to a
// concrete embed.Embedder per index kind: the offline ones built into the
// binary (local, local-full, hash) or a remote model (mistral, openai,
// ollama).
package embedders

import (
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/blend"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/embed/local"
	"github.com/dir2mcp/dir2mcp/lib/embed/local/full"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Offline is the provider used when nothing else is configured: a static
// token table distilled from Universal Sentence Encoder Lite, embedded in
// the binary, blended with feature hashing (see localHashWeight).
const Offline = local.Name

// The local provider's vectors are the token table's concatenated with
// feature hashing's, weighted so that a cosine is
// (1−localHashWeight)·cos_table + localHashWeight·cos_hash: a third signal
// beside BM25 and the table that matches identifier parts and character
// trigrams the table's vocabulary cannot. Measured with make eval (hybrid,
// blend 0.3, search.vector_weight 1.5): +0.01 s@10 on comment-stripped
// symbol and +0.03 on stripped package over the table alone, and the held-out
// package set no longer loses to BM25 at s@10.
//
// Queries weigh the hashing part localHashQueryBoost times more than the
// documents were embedded with (blend.Part.QueryBoost; no re-embedding):
// measured with make eval (mean MRR over the 22 set variants, tuning /
// held-out halves), vector-only 0.405 / 0.403 → 0.419 / 0.421, and with
// search.vector_weight 1.3 (was 0.9) hybrid 0.618 / 0.628 → 0.624 / 0.630,
// no set below BM25-only by more than 0.003; the boost alone leaves hybrid
// where it was, the weight alone does not help (tuned on the tuning halves:
// boost 1.5 and 2 on all sets, 0.5–3 on six corpora; weight 0.9–2).
const (
	localHashWeight     = 0.3
	localHashDim        = 256
	localHashQueryBoost = 1.5
)

// Resolve returns the provider name embed.provider resolves to: "auto"
// becomes "mistral" when a Mistral API key is set, else the offline
// default.
func Resolve(cfg *config.Config) string {
	p := cfg.Embed.Provider
	if p == "" || p == "auto" {
		if cfg.Mistral.APIKey.IsSet() {
			return "mistral"
		}
		return Offline
	}
	return p
}

// Open returns the embedders for the text and code indexes. Remote
// providers fail here only on configuration problems (CONFIG_INVALID: no
// key, a bad URL, an unknown dimension); network errors surface when
// embedding.
func Open(cfg *config.Config) (map[string]embed.Embedder, error) {
	var e embed.Embedder
	switch p := Resolve(cfg); p {
	case local.Name:
		// The table is decoded on first use (a server loads it in the
		// background once it is listening): Check reads only its header.
		l := local.New()
		if err := l.Check(); err != nil {
			return nil, err
		}
		h, err := hashing.New(localHashDim)
		if err != nil {
			return nil, err
		}
		b, err := blend.New(blend.Part{Embedder: l, Weight: 1 - localHashWeight}, blend.Part{Embedder: h, Weight: localHashWeight, QueryBoost: localHashQueryBoost})
		if err != nil {
			return nil, err
		}
		e = b
	case full.Name:
		e = full.New()
	case "hash":
		h, err := hashing.New(hashing.DefaultDim)
		if err != nil {
			return nil, err
		}
		e = h
	case "mistral", "openai", "ollama":
		return openRemote(cfg, p)
	default:
		return nil, errcode.FieldError(errcode.ConfigInvalid, "embed.provider",
			"embed.provider %q is not available in this build (available: auto, local, local-full, hash, mistral, openai, ollama)", p)
	}
	return map[string]embed.Embedder{record.KindText: e, record.KindCode: e}, nil
}
