package mcpserver

import (
	"context"
	"errors"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Default deadlines when the configuration sets none (server.tool_timeout,
// server.provider_tool_timeout).
const (
	defaultToolTimeout     = 60 * time.Second
	defaultProviderTimeout = 10 * time.Minute
)

// timeout is the deadline of a call to tool: the provider one for tools
// that reach out of the directory (OpenWorldHint), else the ordinary one.
func (s *Server) timeout(tool *mcp.Tool) time.Duration {
	d, provider := defaultToolTimeout, defaultProviderTimeout
	if s.Config != nil {
		if c := s.Config.Server.ToolTimeout.Std(); c > 0 {
			d = c
		}
		if c := s.Config.Server.ProviderToolTimeout.Std(); c > 0 {
			provider = c
		}
	}
	if tool != nil && tool.Annotations != nil && tool.Annotations.OpenWorldHint != nil && *tool.Annotations.OpenWorldHint {
		return provider
	}
	return d
}

// withDeadline runs f with a context that ends after d and returns its
// result, or, once d has passed, a TIMEOUT error at once: f's context is
// cancelled, so its work stops, and whatever it returns later is dropped.
// When ctx itself ends first (the client cancelled or left), its error is
// returned.
func withDeadline[T any](ctx context.Context, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(cctx)
		done <- result{v, err}
	}()
	var zero T
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return zero, timedOut(d) // it failed for want of time
		}
		return r.v, r.err
	case <-cctx.Done():
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		return zero, timedOut(d)
	}
}

// timedOut is the TIMEOUT error of a call that ran past d.
func timedOut(d time.Duration) error {
	e := errcode.New(errcode.Timeout, "the call did not finish within %s (server.tool_timeout); narrow it (path_prefix, glob, a smaller limit) or retry", d)
	e.Retryable = true
	return e
}
