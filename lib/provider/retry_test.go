package provider

import (
	"net/http"
	"testing"
	"time"
)

func TestBackoffDoublesWithinJitterAndCap(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 5: time.Second, 30: time.Second} {
		for i := 0; i < 50; i++ {
			if d := backoff(p, n); d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, want/2, want)
			}
		}
	}
}

func TestRetryAfterForms(t *testing.T) {
	future := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	cases := []struct {
		h      http.Header
		lo, hi int64
	}{
		{http.Header{"Retry-After": {"2"}}, 2000, 2000},
		{http.Header{"Retry-After": {"0.5"}}, 500, 500},
		{http.Header{"Retry-After": {future}}, 28000, 30000},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250, 250},
		{http.Header{"Retry-After": {"99999"}}, 600000, 600000},
		{http.Header{"Retry-After": {"soon"}}, 0, 0},
		{http.Header{"Retry-After": {"-3"}}, 0, 0},
		{http.Header{}, 0, 0},
	}
	for _, c := range cases {
		if got := retryAfterMs(c.h); got < c.lo || got > c.hi {
			t.Errorf("retryAfterMs(%v) = %d, want %d..%d", c.h, got, c.lo, c.hi)
		}
	}
}

func TestProviderMessageShapes(t *testing.T) {
	for body, want := range map[string]string{
		`{"object":"error","message":"Too many tokens"}`:                      "Too many tokens",
		`{"error":{"message":"Incorrect API key","type":"x"}}`:                "Incorrect API key",
		`{"error":"model \"x\" not found"}`:                                   `model "x" not found`,
		`{"detail":{"status":"invalid_api_key","message":"Invalid API key"}}`: "Invalid API key",
		`{"detail":[{"loc":["body"],"msg":"field required"}]}`:                "field required",
		`upstream   connect error`:                                            "upstream connect error",
		`<html><body>502</body></html>`:                                       "",
		``:                                                                    "",
	} {
		if got := providerMessage([]byte(body)); got != want {
			t.Errorf("providerMessage(%s) = %q, want %q", body, got, want)
		}
	}
}
