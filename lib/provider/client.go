package provider

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
)

// Request is one API call. Body is kept so a retry can resend it.
type Request struct {
	Method      string // default POST
	Path        string // appended to the base URL, e.g. "/v1/embeddings"
	Query       url.Values
	Body        []byte
	ContentType string
	Accept      string // default application/json
	// Op names the operation in error messages ("embeddings", "ocr", ...).
	Op string
	// FailCode, when set, replaces Codes.Failed for this request.
	FailCode errcode.Code
}

// Response is a successful (2xx) reply with its whole body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Stats counts what a client did since it was created.
type Stats struct {
	Calls   int64         // HTTP attempts sent
	Retries int64         // attempts after the first of a request
	Waited  time.Duration // total time spent in backoff and Retry-After waits
}

// Client sends requests to one provider. It is safe for concurrent use.
type Client struct {
	cfg   Config
	base  string
	key   string
	slots chan struct{}

	calls   atomic.Int64
	retries atomic.Int64
	waited  atomic.Int64

	mu         sync.Mutex
	pauseUntil time.Time // set by a 429 with Retry-After: every request waits
}

// New returns a client for cfg. It fails with CONFIG_INVALID when the base
// URL is not an absolute http(s) URL.
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errcode.New(errcode.ConfigInvalid, "%s: base URL %q is not an absolute http(s) URL", cfg.Name, cfg.BaseURL)
	}
	key := strings.TrimSpace(cfg.APIKey.Value)
	events.RegisterSecret(key)
	return &Client{
		cfg:   cfg,
		base:  strings.TrimRight(cfg.BaseURL, "/"),
		key:   key,
		slots: make(chan struct{}, cfg.Concurrency),
	}, nil
}

// Name is the provider name given in Config.
func (c *Client) Name() string { return c.cfg.Name }

// HasKey reports whether an API key is configured.
func (c *Client) HasKey() bool { return c.key != "" }

// Concurrency is the number of attempts the client lets be in flight.
func (c *Client) Concurrency() int { return c.cfg.Concurrency }

// Codes returns the client's error codes.
func (c *Client) Codes() Codes { return c.cfg.Codes }

// Stats returns the client's counters.
func (c *Client) Stats() Stats {
	return Stats{Calls: c.calls.Load(), Retries: c.retries.Load(), Waited: time.Duration(c.waited.Load())}
}

// Do sends req, retrying per the client's RetryPolicy, and returns the 2xx
// response. Every error is an *errcode.Error; one caused by ctx ending wraps
// ctx.Err() (errors.Is(err, context.Canceled) holds).
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	if int64(len(req.Body)) > c.cfg.MaxRequestBytes {
		return nil, c.fail(req, false, nil, "request body of %d bytes exceeds the %d-byte cap", len(req.Body), c.cfg.MaxRequestBytes)
	}
	deadline := time.Now().Add(c.cfg.Retry.Budget)
	for attempt := 1; ; attempt++ {
		if err := c.waitPause(ctx, req, deadline); err != nil {
			return nil, err
		}
		if attempt > 1 {
			c.retries.Add(1)
		}
		resp, err := c.attempt(ctx, req)
		if err == nil {
			return resp, nil
		}
		if !err.Retryable || attempt >= c.cfg.Retry.MaxAttempts || ctx.Err() != nil {
			return nil, err
		}
		wait := backoff(c.cfg.Retry, attempt)
		if err.RetryAfterMs > 0 {
			wait = time.Duration(err.RetryAfterMs) * time.Millisecond
			if err.Code == c.cfg.Codes.RateLimit {
				c.pause(wait)
			}
		}
		if time.Now().Add(wait).After(deadline) {
			if err.RetryAfterMs == 0 {
				err.RetryAfterMs = wait.Milliseconds()
			}
			err.Message += " (retry budget of " + c.cfg.Retry.Budget.String() + " spent)"
			return nil, err
		}
		if serr := c.sleep(ctx, req, wait); serr != nil {
			return nil, serr
		}
	}
}

// attempt sends req once, holding one concurrency slot.
func (c *Client) attempt(ctx context.Context, req Request) (*Response, *errcode.Error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, c.canceled(ctx, req)
	}
	defer func() { <-c.slots }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	hreq, err := c.newHTTPRequest(actx, req)
	if err != nil {
		return nil, c.fail(req, false, err, "building request: %v", err)
	}
	c.calls.Add(1)
	hresp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		return nil, c.transportError(ctx, actx, req, err)
	}
	defer hresp.Body.Close()
	body, rerr := io.ReadAll(io.LimitReader(hresp.Body, c.cfg.MaxResponseBytes+1))
	if rerr != nil {
		return nil, c.transportError(ctx, actx, req, rerr)
	}
	if int64(len(body)) > c.cfg.MaxResponseBytes {
		return nil, c.fail(req, false, nil, "response body exceeds the %d-byte cap", c.cfg.MaxResponseBytes)
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return nil, c.statusError(req, hresp, body)
	}
	return &Response{Status: hresp.StatusCode, Header: hresp.Header, Body: body}, nil
}

func (c *Client) newHTTPRequest(ctx context.Context, req Request) (*http.Request, error) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	u := c.base + req.Path
	if len(req.Query) > 0 {
		u += "?" + req.Query.Encode()
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	if req.ContentType != "" {
		hreq.Header.Set("Content-Type", req.ContentType)
	}
	accept := req.Accept
	if accept == "" {
		accept = "application/json"
	}
	hreq.Header.Set("Accept", accept)
	hreq.Header.Set("User-Agent", c.cfg.UserAgent)
	if c.key != "" {
		if strings.EqualFold(c.cfg.AuthHeader, "Authorization") {
			hreq.Header.Set("Authorization", "Bearer "+c.key)
		} else {
			hreq.Header.Set(c.cfg.AuthHeader, c.key)
		}
	}
	return hreq, nil
}

// transportError classifies a failure to send or read: the caller's ctx
// ending is a cancellation, the attempt's own timeout and network errors
// are retryable failures.
func (c *Client) transportError(ctx, actx context.Context, req Request, err error) *errcode.Error {
	if ctx.Err() != nil {
		return c.canceled(ctx, req)
	}
	if actx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return c.fail(req, true, err, "no response within %s", c.cfg.Timeout)
	}
	return c.fail(req, true, err, "%v", err)
}

func (c *Client) canceled(ctx context.Context, req Request) *errcode.Error {
	e := c.fail(req, true, ctx.Err(), "%v", ctx.Err())
	return e
}

// pause makes every request wait d before its next attempt.
func (c *Client) pause(d time.Duration) {
	until := time.Now().Add(d)
	c.mu.Lock()
	if until.After(c.pauseUntil) {
		c.pauseUntil = until
	}
	c.mu.Unlock()
}

func (c *Client) waitPause(ctx context.Context, req Request, deadline time.Time) *errcode.Error {
	c.mu.Lock()
	until := c.pauseUntil
	c.mu.Unlock()
	wait := time.Until(until)
	if wait <= 0 {
		return nil
	}
	if until.After(deadline) {
		e := c.rateLimited(req, "the provider asked to wait %s, past the retry budget", wait.Round(time.Millisecond))
		e.RetryAfterMs = wait.Milliseconds()
		return e
	}
	return c.sleep(ctx, req, wait)
}

func (c *Client) sleep(ctx context.Context, req Request, d time.Duration) *errcode.Error {
	t := time.NewTimer(d)
	defer t.Stop()
	start := time.Now()
	select {
	case <-t.C:
		c.waited.Add(int64(time.Since(start)))
		return nil
	case <-ctx.Done():
		c.waited.Add(int64(time.Since(start)))
		return c.canceled(ctx, req)
	}
}
