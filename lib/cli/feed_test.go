package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// returns runs f and returns its error; f still running after the
// watchdog is a hang (the watchdog catches hangs, it measures nothing).
func returns(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("feed did not return (hung)")
		return nil
	}
}

// endless is an upstream stage that never stops producing records.
func endless() (int, error) { return 1, nil }

// A run that fails early returns its error although records keep coming:
// the reader must not block on a full channel feed then waits for.
func TestFeedReturnsWhenRunStopsEarly(t *testing.T) {
	boom := errors.New("boom")
	err := returns(t, func() error {
		return feed(context.Background(), endless, func(_ context.Context, in <-chan int) error {
			<-in
			return boom
		})
	})
	if !errors.Is(err, boom) {
		t.Fatalf("feed = %v, want the run's error", err)
	}
}

// Ctrl-C while the upstream is quiet (a read that never returns) ends the
// run: the channel closes although the reader is stuck in next.
func TestFeedReturnsOnCancelWhileReadBlocks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	stuck := make(chan struct{}) // never closed: a pipe with nothing coming
	first := true
	next := func() (int, error) {
		if first {
			first = false
			return 1, nil
		}
		<-stuck
		return 0, io.EOF
	}
	var got []int
	err := returns(t, func() error {
		return feed(ctx, next, func(_ context.Context, in <-chan int) error {
			for v := range in {
				got = append(got, v)
				cancel()
			}
			return nil
		})
	})
	if !errors.Is(err, context.Canceled) || !slices.Equal(got, []int{1}) {
		t.Fatalf("feed = %v after %v, want context.Canceled after [1]", err, got)
	}
}

// Every record reaches the run in order; a malformed record on stdin ends
// it with INVALID_FIELD after the records before it.
func TestFeedDeliversThenReportsTheReadError(t *testing.T) {
	for _, tc := range []struct {
		tail error
		code errcode.Code
	}{{io.EOF, ""}, {errors.New("line 4: not JSON"), errcode.InvalidField}} {
		n := 0
		next := func() (int, error) {
			if n == 3 {
				return 0, stdinErr(tc.tail)
			}
			n++
			return n, nil
		}
		var got []int
		err := returns(t, func() error {
			return feed(context.Background(), next, func(_ context.Context, in <-chan int) error {
				for v := range in {
					got = append(got, v)
				}
				return nil
			})
		})
		if !slices.Equal(got, []int{1, 2, 3}) || (tc.code == "" && err != nil) || (tc.code != "" && errcode.Of(err) != tc.code) {
			t.Fatalf("tail %v: got %v, err %v", tc.tail, got, err)
		}
	}
}
