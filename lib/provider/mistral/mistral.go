// Package mistral is dir2mcp's Mistral AI client (SPEC §8.1): embeddings
// (mistral-embed, codestral-embed), OCR (mistral-ocr-latest) and document
// annotations, chat completions for ask, and transcription (Voxtral).
//
// Wire formats follow Mistral's SDKs: client-python
// src/mistralai/models/{embeddingrequest,ocrresponse,jsonschema,
// audiotranscriptionrequest}.py and client-ts
// src/funcs/audioTranscriptionsComplete.ts, docs/models/components/
// ocrresponse.md. Errors use MISTRAL_AUTH, MISTRAL_RATE_LIMIT and
// MISTRAL_FAILED (SPEC §14.5).
package mistral

import (
	"net/http"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// DefaultBaseURL is Mistral's public API.
const DefaultBaseURL = "https://api.mistral.ai"

// Default models (SPEC §16.2).
const (
	DefaultEmbedTextModel = "mistral-embed"
	DefaultEmbedCodeModel = "codestral-embed"
	DefaultOCRModel       = "mistral-ocr-latest"
	DefaultChatModel      = "mistral-small-2506"
	DefaultSTTModel       = "voxtral-mini-latest"
)

// Options configures a Client. Zero fields take provider defaults.
type Options struct {
	BaseURL     string // default DefaultBaseURL
	APIKey      config.Secret
	Timeout     time.Duration // per attempt (default 60 s; OCR and STT use 5 min)
	Concurrency int           // requests in flight (default 4)
	Retry       provider.RetryPolicy
	HTTPClient  *http.Client
}

// Client talks to the Mistral API. It is safe for concurrent use.
type Client struct {
	http *provider.Client
	// slow is the same endpoint with a longer per-attempt timeout, for OCR
	// and transcription of large files.
	slow *provider.Client
}

// New returns a client. It fails with CONFIG_INVALID when no API key is
// set or the base URL is invalid.
func New(o Options) (*Client, error) {
	if !o.APIKey.IsSet() {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "mistral.api_key",
			"mistral: no API key (set MISTRAL_API_KEY or mistral.api_key)")
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	cfg := provider.Config{
		Name: "mistral", BaseURL: o.BaseURL, APIKey: o.APIKey, Codes: provider.MistralCodes,
		Timeout: o.Timeout, Concurrency: o.Concurrency, Retry: o.Retry, HTTPClient: o.HTTPClient,
	}
	fast, err := provider.New(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	slow, err := provider.New(cfg)
	if err != nil {
		return nil, err
	}
	return &Client{http: fast, slow: slow}, nil
}

// Stats adds up the counters of the client's requests.
func (c *Client) Stats() provider.Stats {
	a, b := c.http.Stats(), c.slow.Stats()
	return provider.Stats{Calls: a.Calls + b.Calls, Retries: a.Retries + b.Retries, Waited: a.Waited + b.Waited}
}
