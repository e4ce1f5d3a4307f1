// Package openai is dir2mcp's client for OpenAI and OpenAI-compatible
// servers (vLLM, LM Studio, llama.cpp server, LiteLLM, ...): embeddings
// (POST /v1/embeddings {model, input, dimensions?} → data[{index,
// embedding}]) and chat completions (POST /v1/chat/completions), per the
// OpenAI API reference.
//
// The error taxonomy (SPEC §14.5) has no OpenAI codes, so this client
// reports a rejected key as CONFIG_INVALID, throttling as RATE_LIMITED,
// embedding failures as EMBED_FAILED and chat failures as INTERNAL (see
// provider.GenericCodes).
package openai

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/chat"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com"

// Options configures a Client. Zero fields take provider defaults.
type Options struct {
	// BaseURL of the server; a trailing "/v1" is accepted and dropped,
	// since request paths include it.
	BaseURL string
	// APIKey is optional: local OpenAI-compatible servers often need none.
	APIKey      config.Secret
	Timeout     time.Duration
	Concurrency int
	Retry       provider.RetryPolicy
	HTTPClient  *http.Client
}

// Client talks to an OpenAI-compatible server. It is safe for concurrent
// use.
type Client struct {
	http *provider.Client
}

// New returns a client; it fails with CONFIG_INVALID on a bad base URL.
func New(o Options) (*Client, error) {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimSuffix(strings.TrimRight(o.BaseURL, "/"), "/v1")
	c, err := provider.New(provider.Config{
		Name: "openai", BaseURL: o.BaseURL, APIKey: o.APIKey, Codes: provider.GenericCodes,
		Timeout: o.Timeout, Concurrency: o.Concurrency, Retry: o.Retry, HTTPClient: o.HTTPClient,
	})
	if err != nil {
		return nil, err
	}
	return &Client{http: c}, nil
}

// Stats returns the client's counters.
func (c *Client) Stats() provider.Stats { return c.http.Stats() }

// EmbedLimits bound one request: OpenAI accepts up to 2048 inputs and
// 300k tokens per request and 8191 tokens per input; smaller batches keep
// latency and retries cheap, and the estimates keep a margin.
var EmbedLimits = provider.BatchLimits{MaxInputs: 512, MaxTokens: 100000, MaxInputTokens: 6000}

// embedModels lists known models' default dimension and whether they
// accept the dimensions parameter.
var embedModels = map[string]struct {
	dim       int
	shortable bool
}{
	"text-embedding-3-small": {1536, true},
	"text-embedding-3-large": {3072, true},
	"text-embedding-ada-002": {1536, false},
}

// Embedder returns an embedder for model. dim 0 takes a known model's
// default; a smaller dim is sent as "dimensions" to models that support
// it. Other models need an explicit dim, which is checked, not sent.
func (c *Client) Embedder(model string, dim int) (*provider.Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, errcode.New(errcode.ConfigInvalid, "openai: no embedding model configured")
	}
	send := 0
	if m, ok := embedModels[model]; ok {
		switch {
		case dim == 0 || dim == m.dim:
			dim = m.dim
		case m.shortable && dim > 0 && dim < m.dim:
			send = dim
		default:
			return nil, errcode.New(errcode.ConfigInvalid, "openai: %s does not produce %d-dimensional vectors", model, dim)
		}
	} else if dim <= 0 {
		return nil, errcode.New(errcode.ConfigInvalid, "openai: the dimension of embedding model %q is unknown; configure it", model)
	}
	batch := func(ctx context.Context, texts []string) ([][]float32, error) {
		return c.http.PostEmbeddings(ctx, "/v1/embeddings", errcode.EmbedFailed, provider.EmbeddingsRequest{
			Model: model, Input: texts, Dimensions: send, EncodingFormat: "float",
		})
	}
	return provider.NewEmbedder(provider.EmbedderConfig{
		Provider: "openai", Model: model, Dim: dim, Limits: EmbedLimits,
		FailCode: errcode.EmbedFailed, Client: c.http, Batch: batch,
	}), nil
}

// Chat returns a chat completion (POST /v1/chat/completions).
func (c *Client) Chat(ctx context.Context, req chat.Request) (*chat.Response, error) {
	if req.Model == "" {
		return nil, errcode.New(errcode.ConfigInvalid, "openai: no chat model configured")
	}
	return c.http.PostChatCompletions(ctx, "/v1/chat/completions", "", req)
}

var _ chat.Chatter = (*Client)(nil)
