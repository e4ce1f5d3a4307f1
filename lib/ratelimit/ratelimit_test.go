package ratelimit

import (
	"testing"
	"time"
)

func TestLimiterBurstThenRate(t *testing.T) {
	l := New(2, 3) // 2/s, burst 3
	now := time.Unix(0, 0)
	l.now = func() time.Time { return now }
	for i := range 3 {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("burst request %d refused", i)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("4th request: ok=%v wait=%v, want refused for 500ms", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Error("another client shares a's bucket")
	}
	now = now.Add(wait)
	if ok, _ := l.Allow("a"); !ok {
		t.Error("refused after waiting retryAfter")
	}
	e := Exceeded("dir2mcp.ask", 1234567*time.Nanosecond)
	if e.Code != "RATE_LIMITED" || !e.Retryable || e.RetryAfterMs != 2 {
		t.Errorf("error %+v", e)
	}
	if ok, _ := New(0, 0).Allow("x"); !ok {
		t.Error("rps 0 must mean unlimited")
	}
	var none *Limiter
	if ok, _ := none.Allow("x"); !ok {
		t.Error("a nil limiter must mean unlimited")
	}
}
