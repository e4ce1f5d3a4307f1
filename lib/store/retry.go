package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// BusyBudget is how long a write keeps retrying while another process holds
// the database write lock, on top of SQLite's own busy timeout per attempt.
var BusyBudget = 2 * time.Minute

// isBusy reports whether err is a transient lock conflict worth retrying.
func isBusy(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	return false
}

// withRetry runs fn, retrying busy/locked failures with jittered backoff
// until BusyBudget is spent. The final failure is returned, never dropped.
func (s *Store) withRetry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(BusyBudget)
	delay := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !isBusy(err) {
			return s.writeErr(err)
		}
		if time.Now().After(deadline) {
			return errcode.Wrap(errcode.IndexLocked, err,
				"%s stayed locked by another writer for %s (%d attempts): %v", s.path, BusyBudget, attempt, err)
		}
		sleep := delay/2 + time.Duration(rand.Int64N(int64(delay)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(sleep):
		}
		if delay < time.Second {
			delay *= 2
		}
	}
}

func nowUnix() int64 { return time.Now().Unix() }
