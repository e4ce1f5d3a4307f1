// Package ratelimit holds token-bucket rate limiters keyed by client or
// session, and the RATE_LIMITED error a refused call gets.
package ratelimit

import (
	"math"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// maxBuckets bounds how many clients a limiter tracks; past it, buckets that
// have refilled completely (indistinguishable from new ones) are dropped.
const maxBuckets = 10000

// Limiter is a set of token buckets, one per key (a client address or a
// session), each refilled at rps tokens per second up to burst. The zero
// rps means unlimited, and so does a nil Limiter. It is safe for concurrent
// use.
type Limiter struct {
	rps   float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New returns a limiter of rps requests per second with bursts of burst
// (at least 1).
func New(rps float64, burst int) *Limiter {
	if burst < 1 {
		burst = 1
	}
	return &Limiter{rps: rps, burst: float64(burst), now: time.Now, buckets: map[string]*bucket{}}
}

// Allow takes one token from key's bucket. When the bucket is empty it takes
// nothing and returns how long until a token is available.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l == nil || l.rps <= 0 {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.pruneLocked(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rps)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rps * float64(time.Second))
	return false, wait
}

func (l *Limiter) pruneLocked(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rps >= l.burst {
			delete(l.buckets, k)
		}
	}
}

// Exceeded is the RATE_LIMITED error of a refused call (what: a tool name,
// "request"); retryAfterMs is rounded up so a client that waits that long
// succeeds.
func Exceeded(what string, wait time.Duration) *errcode.Error {
	ms := max(int64(math.Ceil(float64(wait)/float64(time.Millisecond))), 1)
	return &errcode.Error{Code: errcode.RateLimited, Retryable: true, RetryAfterMs: ms,
		Message: what + " rate limit exceeded (server.rate_limit); retry after " + time.Duration(ms*int64(time.Millisecond)).String()}
}
