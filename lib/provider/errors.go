package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
)

// ErrBatchTooLarge is wrapped by errors for a request the provider rejected
// as too large to process in one go (too many inputs or tokens, payload
// too large); splitting it may succeed.
var ErrBatchTooLarge = errors.New("provider: request too large")

// ErrMalformed is wrapped by errors for a 2xx response whose body does not
// have the documented shape.
var ErrMalformed = errors.New("provider: malformed response")

// maxMessage caps the provider message quoted in an error.
const maxMessage = 300

func (c *Client) prefix(req Request) string {
	if req.Op == "" {
		return c.cfg.Name + ": "
	}
	return c.cfg.Name + " " + req.Op + ": "
}

// fail returns a failure with the request's failure code.
func (c *Client) fail(req Request, retryable bool, cause error, format string, args ...any) *errcode.Error {
	code := c.cfg.Codes.Failed
	if req.FailCode != "" {
		code = req.FailCode
	}
	return &errcode.Error{
		Code:      code,
		Message:   c.scrub(c.prefix(req) + fmt.Sprintf(format, args...)),
		Retryable: retryable,
		Err:       cause,
	}
}

func (c *Client) rateLimited(req Request, format string, args ...any) *errcode.Error {
	return &errcode.Error{
		Code:      c.cfg.Codes.RateLimit,
		Message:   c.scrub(c.prefix(req) + fmt.Sprintf(format, args...)),
		Retryable: true,
	}
}

// Malformed returns the error for a 2xx response whose body is not what the
// API documents. It is not retryable: resending gets the same answer from a
// server that does not speak the format.
func (c *Client) Malformed(req Request, format string, args ...any) *errcode.Error {
	return c.fail(req, false, ErrMalformed, "malformed response: "+format, args...)
}

// statusError classifies a non-2xx response.
func (c *Client) statusError(req Request, resp *http.Response, body []byte) *errcode.Error {
	msg := providerMessage(body)
	detail := fmt.Sprintf("HTTP %d", resp.StatusCode)
	if msg != "" {
		detail += ": " + msg
	}
	switch s := resp.StatusCode; {
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return &errcode.Error{
			Code:    c.cfg.Codes.Auth,
			Message: c.scrub(c.prefix(req) + "the API key was rejected (" + detail + "); check the configured key"),
		}
	case s == http.StatusTooManyRequests:
		e := c.rateLimited(req, "rate limited (%s)", detail)
		e.RetryAfterMs = retryAfterMs(resp.Header)
		return e
	case s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooEarly || s >= 500:
		e := c.fail(req, true, nil, "%s", detail)
		e.RetryAfterMs = retryAfterMs(resp.Header)
		return e
	case s == http.StatusRequestEntityTooLarge || (s == http.StatusBadRequest || s == http.StatusUnprocessableEntity) && tooLarge(msg):
		return c.fail(req, false, ErrBatchTooLarge, "%s", detail)
	}
	return c.fail(req, false, nil, "%s", detail)
}

// tooLarge recognises the providers' "split your batch" messages, e.g.
// Mistral's "Too many tokens in batch. Max is 16384 got 17555" and
// "Too many inputs in request, split into more batches."
func tooLarge(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"too many tokens", "too many inputs", "split into more batches", "maximum context length", "too large", "batch size"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// providerMessage extracts the human message of an error body in the
// shapes the providers use: {"message"}, {"error": "..."},
// {"error": {"message"}}, {"detail": "..."}, {"detail": {"message"}} and
// {"detail": [{"msg"}]}; otherwise the body's start if it is text.
func providerMessage(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) == nil {
		if s := findMessage(v, 0); s != "" {
			return clip(s)
		}
	}
	s := strings.TrimSpace(string(body))
	if s == "" || !utf8.ValidString(s) || strings.HasPrefix(s, "<") {
		return ""
	}
	return clip(s)
}

func findMessage(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch t := v.(type) {
	case string:
		return t
	case []any:
		if len(t) > 0 {
			return findMessage(t[0], depth+1)
		}
	case map[string]any:
		for _, k := range []string{"message", "msg", "error", "detail"} {
			if x, ok := t[k]; ok {
				if s := findMessage(x, depth+1); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// scrub removes the API key (and any registered secret) from s.
func (c *Client) scrub(s string) string {
	if c.key != "" {
		s = strings.ReplaceAll(s, c.key, "[REDACTED]")
	}
	return events.Redact(s)
}
