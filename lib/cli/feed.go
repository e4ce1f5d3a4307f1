package cli

import (
	"context"
	"errors"
	"io"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// feedBuffer is how many records wait between the stdin reader and a stage.
const feedBuffer = 1024

// feed runs run on the records next returns (a stage reading NDJSON from
// stdin), reading them in the background, until next reports io.EOF. It
// returns when run does, without waiting for a reader that is blocked:
//   - run returns an error (it stopped early): feed returns that error, and
//     the reader stops at its next record instead of blocking on a full
//     channel nobody drains;
//   - ctx ends (Ctrl-C) while the upstream stage is quiet: the channel run
//     reads is closed at once, so run returns although next may still be
//     waiting for input (that read is abandoned with the process); feed
//     returns ctx's error;
//   - run drains the channel: feed returns the reader's error (nil at EOF).
func feed[T any](ctx context.Context, next func() (T, error), run func(context.Context, <-chan T) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	read := make(chan T)
	readErr := make(chan error, 1)
	go func() {
		defer close(read)
		for {
			v, err := next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readErr <- err
				return
			}
			select {
			case read <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	in := make(chan T, feedBuffer)
	go func() {
		defer close(in)
		for {
			select {
			case <-ctx.Done():
				return
			case v, ok := <-read:
				if !ok {
					return
				}
				select {
				case in <- v:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	err := run(ctx, in)
	if err == nil {
		err = ctx.Err() // the input was cut short
	}
	if err != nil {
		return err
	}
	select {
	case err := <-readErr:
		return err
	default: // run stopped reading on its own
		return nil
	}
}

// stdinErr is the error of a record read from stdin: INVALID_FIELD for a
// malformed record; io.EOF and nil pass through.
func stdinErr(err error) error {
	if err == nil || errors.Is(err, io.EOF) {
		return err
	}
	return errcode.Wrap(errcode.InvalidField, err, "stdin: %v", err)
}
