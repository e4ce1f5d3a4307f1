package provider

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter caps a server's Retry-After so a bogus value cannot park a
// request for hours; the retry budget usually ends it earlier anyway.
const maxRetryAfter = 10 * time.Minute

// backoff returns the wait after failed attempt n (1-based): BaseDelay
// doubled per attempt, capped at MaxDelay, drawn from [d/2, d].
func backoff(p RetryPolicy, n int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	if d > p.MaxDelay {
		d = p.MaxDelay
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// retryAfterMs reads how long the server asks to wait: "retry-after-ms"
// (milliseconds, sent by OpenAI-compatible servers) or the standard
// Retry-After (delay-seconds or an HTTP-date, RFC 9110 §10.2.3). 0 means
// no usable hint.
func retryAfterMs(h http.Header) int64 {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capMs(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return capMs(time.Duration(s * float64(time.Second)))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return capMs(d)
		}
	}
	return 0
}

func capMs(d time.Duration) int64 {
	if d > maxRetryAfter {
		d = maxRetryAfter
	}
	if d < time.Millisecond {
		d = time.Millisecond
	}
	return d.Milliseconds()
}
