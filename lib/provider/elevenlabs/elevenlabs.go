// Package elevenlabs is dir2mcp's ElevenLabs client: speech-to-text with
// Scribe (SPEC §8.2) and text-to-speech for dir2mcp.ask_audio (SPEC
// §15.10). Requests carry the key in the xi-api-key header. Wire formats
// follow elevenlabs-python src/elevenlabs/speech_to_text/raw_client.py,
// types/speech_to_text_chunk_response_model.py,
// types/speech_to_text_word_response_model.py and
// text_to_speech/raw_client.py. Errors use ELEVENLABS_AUTH,
// ELEVENLABS_RATE_LIMIT and ELEVENLABS_FAILED (SPEC §14.5).
package elevenlabs

import (
	"net/http"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// DefaultBaseURL is ElevenLabs' public API.
const DefaultBaseURL = "https://api.elevenlabs.io"

// Defaults.
const (
	// DefaultSTTModel is Scribe's model id; the config value "scribe" maps
	// to it.
	DefaultSTTModel = "scribe_v1"
	DefaultTTSModel = "eleven_multilingual_v2"
	// DefaultVoiceID is the voice used when ask_audio names none
	// ("Rachel", a premade voice available to every account).
	DefaultVoiceID = "21m00Tcm4TlvDq8ikWAM"
)

// Options configures a Client. Zero fields take provider defaults.
type Options struct {
	BaseURL     string // default DefaultBaseURL
	APIKey      config.Secret
	Timeout     time.Duration // per attempt (default 5 min)
	Concurrency int           // requests in flight (default 4)
	Retry       provider.RetryPolicy
	HTTPClient  *http.Client
}

// Client talks to the ElevenLabs API. It is safe for concurrent use.
type Client struct {
	http *provider.Client
}

// New returns a client. It fails with CONFIG_INVALID when no API key is
// set or the base URL is invalid.
func New(o Options) (*Client, error) {
	if !o.APIKey.IsSet() {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "stt.elevenlabs.api_key",
			"elevenlabs: no API key (set ELEVENLABS_API_KEY or stt.elevenlabs.api_key)")
	}
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	c, err := provider.New(provider.Config{
		Name: "elevenlabs", BaseURL: o.BaseURL, APIKey: o.APIKey, AuthHeader: "xi-api-key",
		Codes: provider.ElevenLabsCodes, Timeout: o.Timeout, Concurrency: o.Concurrency,
		Retry: o.Retry, HTTPClient: o.HTTPClient,
	})
	if err != nil {
		return nil, err
	}
	return &Client{http: c}, nil
}

// Stats returns the client's counters.
func (c *Client) Stats() provider.Stats { return c.http.Stats() }
