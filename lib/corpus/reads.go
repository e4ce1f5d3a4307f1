package corpus

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// DefaultMaxReads is how many files Access reads for clients at once when
// MaxReads is not set.
const DefaultMaxReads = 64

// readSlots bounds the files read at once for clients: each read holds a
// slot from opening the file to its last byte, and a read beyond the bound
// waits for one as long as its context lets it.
type readSlots struct {
	once sync.Once
	ch   chan struct{}
}

// acquire takes a read slot for a, waiting while ctx lives: a context that
// ends first is TIMEOUT when its deadline passed, else its own error. The
// returned function gives the slot back.
func (a *Access) acquire(ctx context.Context) (func(), error) {
	a.slots.once.Do(func() {
		n := a.MaxReads
		if n <= 0 {
			n = DefaultMaxReads
		}
		a.slots.ch = make(chan struct{}, n)
	})
	select {
	case a.slots.ch <- struct{}{}:
		return func() { <-a.slots.ch }, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e := errcode.New(errcode.Timeout, "all %d file-read slots stayed busy until the call's deadline; retry", cap(a.slots.ch))
			e.Retryable = true
			return nil, e
		}
		return nil, ctx.Err()
	}
}

// releasing is a ReadCloser that gives its read slot back on Close.
type releasing struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (r *releasing) Close() error {
	err := r.ReadCloser.Close()
	r.once.Do(r.release)
	return err
}
