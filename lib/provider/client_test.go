package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

const testKey = "sk-test-0123456789abcdef"

func newTestClient(t *testing.T, h http.Handler, mod func(*Config)) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg := Config{
		Name: "mistral", BaseURL: srv.URL, APIKey: config.Secret{Value: testKey, Source: "env:MISTRAL_API_KEY"},
		Codes: MistralCodes, Timeout: 5 * time.Second,
		Retry: RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond, Budget: 10 * time.Second},
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func asCoded(t *testing.T, err error) *errcode.Error {
	t.Helper()
	var e *errcode.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *errcode.Error", err, err)
	}
	return e
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	for _, u := range []string{"", "api.mistral.ai", "ftp://x", "http://"} {
		if _, err := New(Config{BaseURL: u}); errcode.Of(err) != errcode.ConfigInvalid {
			t.Errorf("New(%q) = %v, want CONFIG_INVALID", u, err)
		}
	}
}

func TestDoSendsBearerKeyAndBody(t *testing.T) {
	var got http.Header
	var body string
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Write([]byte(`{"ok":true}`))
	}), nil)
	var out struct{ OK bool }
	if err := c.PostJSON(context.Background(), Request{Path: "/v1/x"}, map[string]int{"a": 1}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.OK || got.Get("Authorization") != "Bearer "+testKey || got.Get("Content-Type") != "application/json" || body != `{"a":1}` {
		t.Fatalf("ok=%v auth=%q ctype=%q body=%q", out.OK, got.Get("Authorization"), got.Get("Content-Type"), body)
	}
}

func TestCustomAuthHeaderCarriesBareKey(t *testing.T) {
	var got http.Header
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Write([]byte(`{}`))
	}), func(c *Config) { c.AuthHeader = "xi-api-key" })
	if _, err := c.Do(context.Background(), Request{Path: "/"}); err != nil {
		t.Fatal(err)
	}
	if got.Get("xi-api-key") != testKey || got.Get("Authorization") != "" {
		t.Fatalf("headers: %v", got)
	}
}

func TestRetries5xxThenSucceeds(t *testing.T) {
	var n atomic.Int32
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			http.Error(w, `{"message":"upstream overloaded"}`, http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{}`))
	}), nil)
	if _, err := c.Do(context.Background(), Request{Path: "/"}); err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.Calls != 3 || s.Retries != 2 {
		t.Fatalf("stats %+v, want 3 calls and 2 retries", s)
	}
}

func TestPersistent5xxIsRetryableFailure(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"object":"error","message":"Internal server error"}`, http.StatusBadGateway)
	}), nil)
	_, err := c.Do(context.Background(), Request{Path: "/", Op: "embeddings"})
	e := asCoded(t, err)
	if e.Code != errcode.MistralFailed || !e.Retryable || !strings.Contains(e.Message, "HTTP 502: Internal server error") {
		t.Fatalf("got %+v", e)
	}
	if c.Stats().Calls != 4 {
		t.Fatalf("calls = %d, want MaxAttempts (4)", c.Stats().Calls)
	}
}

func TestRateLimitHonoursRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var times []time.Time
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		times = append(times, time.Now())
		first := len(times) == 1
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"message":"Requests rate limit exceeded"}`))
			return
		}
		w.Write([]byte(`{}`))
	}), nil)
	if _, err := c.Do(context.Background(), Request{Path: "/"}); err != nil {
		t.Fatal(err)
	}
	if len(times) != 2 {
		t.Fatalf("%d requests, want 2", len(times))
	}
	if gap := times[1].Sub(times[0]); gap < time.Second {
		t.Fatalf("retried after %v, before the 1 s Retry-After", gap)
	}
	if c.Stats().Waited < time.Second {
		t.Fatalf("Waited = %v, want >= 1s", c.Stats().Waited)
	}
}

func TestRateLimitBeyondBudgetFailsAtOnce(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	}), func(c *Config) { c.Retry.Budget = 2 * time.Second })
	_, err := c.Do(context.Background(), Request{Path: "/"})
	e := asCoded(t, err)
	if e.Code != errcode.MistralRateLimit || !e.Retryable || e.RetryAfterMs != 120000 {
		t.Fatalf("got %+v", e)
	}
	if s := c.Stats(); s.Calls != 1 || s.Waited != 0 {
		t.Fatalf("stats %+v: should fail without waiting", s)
	}
	// Later requests see the pause and fail too, without calling.
	_, err = c.Do(context.Background(), Request{Path: "/"})
	if asCoded(t, err).Code != errcode.MistralRateLimit || c.Stats().Calls != 1 {
		t.Fatalf("second request: %v, calls %d", err, c.Stats().Calls)
	}
}

func TestAuthErrorIsNotRetriedAndHidesKey(t *testing.T) {
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden} {
		c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write([]byte(`{"message":"Invalid API key ` + testKey + `"}`))
		}), nil)
		_, err := c.Do(context.Background(), Request{Path: "/"})
		e := asCoded(t, err)
		if e.Code != errcode.MistralAuth || e.Retryable || c.Stats().Calls != 1 {
			t.Fatalf("%d: got %+v after %d calls", status, e, c.Stats().Calls)
		}
		if strings.Contains(e.Error(), testKey) {
			t.Fatalf("error leaks the key: %s", e.Error())
		}
	}
}

func TestClientErrorIsNotRetried(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"detail":[{"msg":"field required","loc":["body","model"]}]}`, http.StatusUnprocessableEntity)
	}), nil)
	_, err := c.Do(context.Background(), Request{Path: "/"})
	e := asCoded(t, err)
	if e.Code != errcode.MistralFailed || e.Retryable || !strings.Contains(e.Message, "field required") || c.Stats().Calls != 1 {
		t.Fatalf("got %+v", e)
	}
}

func TestTooLargeBatchIsRecognised(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"object":"error","message":"Too many tokens in batch. Max is 16384 got 17555","type":"invalid_request_error"}`, http.StatusBadRequest)
	}), nil)
	_, err := c.Do(context.Background(), Request{Path: "/"})
	if !errors.Is(err, ErrBatchTooLarge) || asCoded(t, err).Retryable {
		t.Fatalf("got %v", err)
	}
}

func TestMalformedJSONIsTypedAndNotRetried(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"data": [`))
	}), nil)
	var out map[string]any
	err := c.PostJSON(context.Background(), Request{Path: "/", Op: "embeddings"}, struct{}{}, &out)
	e := asCoded(t, err)
	if e.Code != errcode.MistralFailed || e.Retryable || !errors.Is(err, ErrMalformed) || c.Stats().Calls != 1 {
		t.Fatalf("got %+v", e)
	}
}

func TestAttemptTimeoutIsRetriedThenReported(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}), func(c *Config) { c.Timeout = 50 * time.Millisecond; c.Retry.MaxAttempts = 2 })
	_, err := c.Do(context.Background(), Request{Path: "/"})
	e := asCoded(t, err)
	if e.Code != errcode.MistralFailed || !e.Retryable || !strings.Contains(e.Message, "no response within 50ms") {
		t.Fatalf("got %+v", e)
	}
	if c.Stats().Calls != 2 {
		t.Fatalf("calls = %d, want 2", c.Stats().Calls)
	}
}

func TestCancellationStopsWaiting(t *testing.T) {
	started := make(chan struct{}, 1)
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-r.Context().Done()
	}), nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := c.Do(ctx, Request{Path: "/"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if c.Stats().Calls != 1 {
		t.Fatalf("calls = %d after cancel, want 1", c.Stats().Calls)
	}
}

func TestSizeCaps(t *testing.T) {
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 2048)))
	}), func(c *Config) { c.MaxResponseBytes = 1024; c.MaxRequestBytes = 100 })
	_, err := c.Do(context.Background(), Request{Path: "/", Body: make([]byte, 101)})
	if e := asCoded(t, err); e.Retryable || !strings.Contains(e.Message, "exceeds the 100-byte cap") || c.Stats().Calls != 0 {
		t.Fatalf("request cap: %+v, calls %d", e, c.Stats().Calls)
	}
	_, err = c.Do(context.Background(), Request{Path: "/"})
	if e := asCoded(t, err); e.Retryable || !strings.Contains(e.Message, "exceeds the 1024-byte cap") {
		t.Fatalf("response cap: %+v", e)
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	var inFlight, peak atomic.Int32
	c := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		w.Write([]byte(`{}`))
	}), func(c *Config) { c.Concurrency = 3 })
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Do(context.Background(), Request{Path: "/"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > 3 || p < 1 {
		t.Fatalf("peak in-flight = %d, want 1..3", p)
	}
}
