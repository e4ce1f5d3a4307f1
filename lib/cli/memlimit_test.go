package cli

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A server trims once after each burst of calls, at the first tick that
// sees no new call: never while calls go on, never when none came.
func TestIdleCallsTrimOncePerBurst(t *testing.T) {
	c := idleCalls{last: 5, trimmed: 5}
	for i, step := range []struct {
		calls int64
		trim  bool
	}{
		{5, false},  // no call since the start
		{5, false},  // still none
		{9, false},  // calls going on
		{12, false}, // still going on
		{12, true},  // stopped: trim
		{12, false}, // trimmed already
		{12, false},
		{13, false}, // one more call
		{13, true},  // stopped again
	} {
		if got := c.tick(step.calls); got != step.trim {
			t.Fatalf("tick %d (count %d): trim %v, want %v", i, step.calls, got, step.trim)
		}
	}
}

// The server's loop trims once after a burst and stops with its context.
func TestTrimWhenIdle(t *testing.T) {
	var calls, trims atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	started, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	count := func() int64 {
		n := calls.Load()
		once.Do(func() { close(started) }) // n is the count it starts from
		return n
	}
	go func() {
		defer close(done)
		trimWhenIdle(ctx, time.Millisecond, count, func() { trims.Add(1) })
	}()
	<-started
	calls.Add(4)
	for deadline := time.Now().Add(10 * time.Second); trims.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no trim 10 s after the calls stopped")
		}
	}
	cancel()
	<-done
	if n := trims.Load(); n != 1 {
		t.Fatalf("%d trims after one burst, want 1", n)
	}
}
