// Package ollama is dir2mcp's client for a local Ollama server, per
// ollama/ollama docs/api.md: embeddings (POST /api/embed {model, input:
// [...], truncate} → {embeddings: [[...]]}) and chat (POST /api/chat
// {model, messages, stream: false} → {message: {role, content}, done}).
// Errors are {"error": "..."} bodies; "model not found" is a 404.
//
// Codes follow provider.GenericCodes, as for openai: embedding failures
// are EMBED_FAILED, chat failures INTERNAL.
package ollama

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

// DefaultBaseURL is where Ollama listens by default.
const DefaultBaseURL = "http://localhost:11434"

// Options configures a Client. Zero fields take defaults.
type Options struct {
	BaseURL string // default DefaultBaseURL
	// APIKey is optional, for an Ollama behind an authenticating proxy.
	APIKey      config.Secret
	Timeout     time.Duration // per attempt (default 5 min: models load lazily)
	Concurrency int           // default 2: a local server is CPU/GPU bound
	Retry       provider.RetryPolicy
	HTTPClient  *http.Client
}

// Client talks to Ollama. It is safe for concurrent use.
type Client struct {
	http *provider.Client
}

// New returns a client; it fails with CONFIG_INVALID on a bad base URL.
func New(o Options) (*Client, error) {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	c, err := provider.New(provider.Config{
		Name: "ollama", BaseURL: strings.TrimRight(o.BaseURL, "/"), APIKey: o.APIKey, Codes: provider.GenericCodes,
		Timeout: o.Timeout, Concurrency: o.Concurrency, Retry: o.Retry, HTTPClient: o.HTTPClient,
	})
	if err != nil {
		return nil, err
	}
	return &Client{http: c}, nil
}

// Stats returns the client's counters.
func (c *Client) Stats() provider.Stats { return c.http.Stats() }

// EmbedLimits bound one request; Ollama truncates over-long inputs itself
// (truncate: true).
var EmbedLimits = provider.BatchLimits{MaxInputs: 64}

// embedDims are the dimensions of common Ollama embedding models.
var embedDims = map[string]int{
	"nomic-embed-text":       768,
	"mxbai-embed-large":      1024,
	"all-minilm":             384,
	"snowflake-arctic-embed": 1024,
	"bge-m3":                 1024,
	"bge-large":              1024,
	"granite-embedding":      384,
}

type embedRequest struct {
	Model    string   `json:"model"`
	Input    []string `json:"input"`
	Truncate bool     `json:"truncate"`
}

type embedResponse struct {
	Embeddings [][]float32 `json:"embeddings"`
}

// Embedder returns an embedder for model ("name" or "name:tag"). dim 0
// takes a known model's dimension; other models need it configured.
func (c *Client) Embedder(model string, dim int) (*provider.Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, errcode.New(errcode.ConfigInvalid, "ollama: no embedding model configured")
	}
	base, _, _ := strings.Cut(model, ":")
	if known, ok := embedDims[base]; ok && dim == 0 {
		dim = known
	} else if ok && dim != known {
		return nil, errcode.New(errcode.ConfigInvalid, "ollama: %s produces %d-dimensional vectors, not %d", model, known, dim)
	}
	if dim <= 0 {
		return nil, errcode.New(errcode.ConfigInvalid, "ollama: the dimension of embedding model %q is unknown; configure it", model)
	}
	batch := func(ctx context.Context, texts []string) ([][]float32, error) {
		req := provider.Request{Path: "/api/embed", Op: "embeddings", FailCode: errcode.EmbedFailed}
		var out embedResponse
		if err := c.http.PostJSON(ctx, req, embedRequest{Model: model, Input: texts, Truncate: true}, &out); err != nil {
			return nil, err
		}
		if len(out.Embeddings) != len(texts) {
			return nil, c.http.Malformed(req, "%d embeddings for %d inputs", len(out.Embeddings), len(texts))
		}
		return out.Embeddings, nil
	}
	return provider.NewEmbedder(provider.EmbedderConfig{
		Provider: "ollama", Model: model, Dim: dim, Limits: EmbedLimits,
		FailCode: errcode.EmbedFailed, Client: c.http, Batch: batch,
	}), nil
}

type chatRequest struct {
	Model    string         `json:"model"`
	Messages []chat.Message `json:"messages"`
	Stream   bool           `json:"stream"`
	Options  map[string]any `json:"options,omitempty"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Message *struct {
		Content string `json:"content"`
	} `json:"message"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
}

// Chat returns a chat completion (POST /api/chat, not streamed);
// Temperature and MaxTokens map to options.temperature and
// options.num_predict.
func (c *Client) Chat(ctx context.Context, req chat.Request) (*chat.Response, error) {
	if req.Model == "" {
		return nil, errcode.New(errcode.ConfigInvalid, "ollama: no chat model configured")
	}
	body := chatRequest{Model: req.Model, Messages: req.Messages}
	if req.Temperature != nil || req.MaxTokens > 0 {
		body.Options = map[string]any{}
		if req.Temperature != nil {
			body.Options["temperature"] = *req.Temperature
		}
		if req.MaxTokens > 0 {
			body.Options["num_predict"] = req.MaxTokens
		}
	}
	preq := provider.Request{Path: "/api/chat", Op: "chat"}
	var out chatResponse
	if err := c.http.PostJSON(ctx, preq, body, &out); err != nil {
		return nil, err
	}
	if out.Message == nil {
		return nil, c.http.Malformed(preq, "no message in the reply")
	}
	return &chat.Response{
		Text: out.Message.Content, Model: out.Model, FinishReason: out.DoneReason,
		PromptTokens: out.PromptEvalCount, CompletionTokens: out.EvalCount,
	}, nil
}

var _ chat.Chatter = (*Client)(nil)
