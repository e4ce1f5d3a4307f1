package provider

import (
	"context"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// EmbedderConfig describes a remote embedding model.
type EmbedderConfig struct {
	Provider string // "mistral", "openai", "ollama"
	Model    string
	Dim      int
	Limits   BatchLimits
	// Parallel is the most batch requests in flight (default: the client's
	// concurrency).
	Parallel int
	// FailCode is the code of failures other than auth and rate limits.
	FailCode errcode.Code
	Client   *Client
	// Batch embeds one batch (the provider's wire format).
	Batch EmbedFunc
}

// Embedder is an embed.Embedder over a remote model: it batches, runs
// batches concurrently, checks dimensions and L2-normalises.
type Embedder struct {
	cfg EmbedderConfig
	id  string
}

var _ embed.Embedder = (*Embedder)(nil)

// NewEmbedder returns the embedder cfg describes.
func NewEmbedder(cfg EmbedderConfig) *Embedder {
	if cfg.Parallel <= 0 {
		cfg.Parallel = cfg.Client.Concurrency()
	}
	return &Embedder{cfg: cfg, id: EmbedderID(cfg.Provider, cfg.Model, cfg.Dim)}
}

// EmbedderID names a remote model for the index: provider, model and
// dimension, e.g. "mistral/codestral-embed/1536", so changing any of them
// makes the index re-embed from scratch instead of mixing vector spaces.
func EmbedderID(provider, model string, dim int) string {
	return provider + "/" + model + "/" + strconv.Itoa(dim)
}

// ID implements embed.Embedder.
func (e *Embedder) ID() string { return e.id }

// Dim implements embed.Embedder.
func (e *Embedder) Dim() int { return e.cfg.Dim }

// Model is the provider's model name.
func (e *Embedder) Model() string { return e.cfg.Model }

// Client is the HTTP client the embedder sends requests with.
func (e *Embedder) Client() *Client { return e.cfg.Client }

// Embed implements embed.Embedder: one unit vector per input, in order.
func (e *Embedder) Embed(ctx context.Context, in []embed.Input) ([][]float32, error) {
	if len(in) == 0 {
		return nil, nil
	}
	texts := make([]string, len(in))
	for i, x := range in {
		texts[i] = x.Text
	}
	vecs, err := EmbedAll(ctx, texts, e.cfg.Limits, e.cfg.Parallel, e.cfg.Dim, e.cfg.Batch)
	if err != nil {
		return nil, e.cfg.Client.Errorf(Request{Op: "embeddings", FailCode: e.cfg.FailCode}, err)
	}
	return vecs, nil
}
