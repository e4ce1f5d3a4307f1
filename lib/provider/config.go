package provider

import (
	"net/http"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Codes are the canonical error codes a client reports.
type Codes struct {
	Auth      errcode.Code // HTTP 401/403
	RateLimit errcode.Code // HTTP 429 after the retry budget is spent
	Failed    errcode.Code // everything else
}

// Error codes per provider. Mistral and ElevenLabs have their own (SPEC
// §14.5). OpenAI-compatible servers and Ollama reuse generic codes: a
// rejected key is a configuration problem (CONFIG_INVALID, exit code 2),
// throttling is RATE_LIMITED, and other failures are reported with the code
// of the operation that failed (the embedders use EMBED_FAILED; chat uses
// INTERNAL because the taxonomy has no generation code).
var (
	MistralCodes    = Codes{errcode.MistralAuth, errcode.MistralRateLimit, errcode.MistralFailed}
	ElevenLabsCodes = Codes{errcode.ElevenLabsAuth, errcode.ElevenLabsRateLimit, errcode.ElevenLabsFailed}
	GenericCodes    = Codes{errcode.ConfigInvalid, errcode.RateLimited, errcode.Internal}
)

// Config configures a Client. Zero fields take the defaults noted.
type Config struct {
	// Name labels the provider in error messages ("mistral", "openai", ...).
	Name string
	// BaseURL is the scheme://host[:port][/prefix] request paths are
	// appended to. Required.
	BaseURL string
	// APIKey is sent with every request when set. Its value is registered
	// with the event redactor and scrubbed from every error message.
	APIKey config.Secret
	// AuthHeader is the header carrying the key (default "Authorization").
	// With "Authorization" the value is "Bearer <key>"; any other header
	// carries the bare key (ElevenLabs uses "xi-api-key").
	AuthHeader string
	Codes      Codes
	// Timeout bounds one HTTP attempt, body included (default 60 s).
	Timeout time.Duration
	// Concurrency bounds the attempts in flight at once (default 4).
	Concurrency int
	Retry       RetryPolicy
	// MaxRequestBytes rejects larger request bodies before sending
	// (default 64 MiB).
	MaxRequestBytes int64
	// MaxResponseBytes fails a response whose body is larger (default
	// 64 MiB); the body is never buffered past the cap.
	MaxResponseBytes int64
	// HTTPClient sends the requests (default: a client with no overall
	// timeout; Timeout applies per attempt).
	HTTPClient *http.Client
	// UserAgent is sent as User-Agent (default "dir2mcp").
	UserAgent string
}

// RetryPolicy says how failed attempts are retried. Attempts that fail with
// HTTP 408, 409, 425, 429, 5xx, a transport error or an attempt timeout are
// retried; anything else is returned at once.
type RetryPolicy struct {
	// MaxAttempts is the most attempts per request, the first included
	// (default 6). 1 disables retries.
	MaxAttempts int
	// BaseDelay is the backoff before the second attempt (default 500 ms);
	// it doubles per attempt, capped at MaxDelay (default 20 s), and each
	// wait is drawn uniformly from [d/2, d] so concurrent clients spread out.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Budget bounds the total time one request may take, waits included
	// (default 2 min). A Retry-After longer than what is left of the budget
	// ends the retries with a rate-limit error carrying RetryAfterMs.
	Budget time.Duration
}

const (
	defaultTimeout      = 60 * time.Second
	defaultConcurrency  = 4
	defaultMaxAttempts  = 6
	defaultBaseDelay    = 500 * time.Millisecond
	defaultMaxDelay     = 20 * time.Second
	defaultBudget       = 2 * time.Minute
	defaultMaxBodyBytes = 64 << 20
)

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "provider"
	}
	if c.AuthHeader == "" {
		c.AuthHeader = "Authorization"
	}
	if c.Codes == (Codes{}) {
		c.Codes = GenericCodes
	}
	if c.Timeout <= 0 {
		c.Timeout = defaultTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = defaultConcurrency
	}
	if c.Retry.MaxAttempts <= 0 {
		c.Retry.MaxAttempts = defaultMaxAttempts
	}
	if c.Retry.BaseDelay <= 0 {
		c.Retry.BaseDelay = defaultBaseDelay
	}
	if c.Retry.MaxDelay <= 0 {
		c.Retry.MaxDelay = defaultMaxDelay
	}
	if c.Retry.Budget <= 0 {
		c.Retry.Budget = defaultBudget
	}
	if c.MaxRequestBytes <= 0 {
		c.MaxRequestBytes = defaultMaxBodyBytes
	}
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = defaultMaxBodyBytes
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.UserAgent == "" {
		c.UserAgent = "dir2mcp"
	}
	return c
}
