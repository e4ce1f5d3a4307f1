package stream

import (
	"context"
	"time"
)

// RetryBudget is how long an operation on a stream keeps retrying before
// the error is returned: long enough for a cluster to elect a new leader
// after losing a node (a few seconds), short enough to report a server
// that is really gone.
var RetryBudget = 30 * time.Second

// retry runs fn until it succeeds, ctx ends or RetryBudget has passed,
// backing off from 100 ms to 1 s. Every operation retried is idempotent:
// publishes carry de-duplication IDs, objects are named by content.
func retry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(RetryBudget)
	wait := 100 * time.Millisecond
	for {
		err := fn()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}
