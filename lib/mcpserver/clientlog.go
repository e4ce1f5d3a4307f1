package mcpserver

import (
	"context"
	"log/slog"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fanout sends each record to two handlers.
type fanout [2]slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool {
	return f[0].Enabled(ctx, l) || f[1].Enabled(ctx, l)
}

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		if h.Enabled(ctx, r.Level) {
			_ = h.Handle(ctx, r.Clone())
		}
	}
	return nil
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	return fanout{f[0].WithAttrs(as), f[1].WithAttrs(as)}
}

func (f fanout) WithGroup(name string) slog.Handler {
	return fanout{f[0].WithGroup(name), f[1].WithGroup(name)}
}

// minLevel drops records below a level (the SDK's chatty info logs).
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(as), m.min}
}
func (m minLevel) WithGroup(n string) slog.Handler { return minLevel{m.Handler.WithGroup(n), m.min} }

// clientLog is a slog.Handler that forwards server log records as
// notifications/message to every session whose client asked for logs with
// logging/setLevel at or below the record's level (the SDK drops messages
// below a session's level, and all messages before it sets one). Secrets
// are redacted. Delivery is asynchronous and best-effort: at most
// maxLogSends sends are in flight, further records are dropped, so logging
// never blocks the server.
type clientLog struct {
	srv   *mcp.Server
	attrs []slog.Attr
	sem   chan struct{}
}

const maxLogSends = 8

func newClientLog(srv *mcp.Server) *clientLog {
	return &clientLog{srv: srv, sem: make(chan struct{}, maxLogSends)}
}

func (c *clientLog) Enabled(context.Context, slog.Level) bool { return true }

func (c *clientLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &clientLog{srv: c.srv, sem: c.sem, attrs: append(append([]slog.Attr{}, c.attrs...), as...)}
}

func (c *clientLog) WithGroup(string) slog.Handler { return c }

func (c *clientLog) Handle(_ context.Context, r slog.Record) error {
	data := map[string]any{"message": events.Redact(r.Message)}
	add := func(a slog.Attr) bool {
		v := a.Value.Resolve()
		if v.Kind() == slog.KindString {
			data[a.Key] = events.Redact(v.String())
		} else {
			data[a.Key] = v.Any()
		}
		return true
	}
	for _, a := range c.attrs {
		add(a)
	}
	r.Attrs(add)
	params := &mcp.LoggingMessageParams{Logger: "dir2mcp", Level: mcpLevel(r.Level), Data: data}
	select {
	case c.sem <- struct{}{}:
	default:
		return nil
	}
	go func() {
		defer func() { <-c.sem }()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for ss := range c.srv.Sessions() {
			_ = ss.Log(ctx, params)
		}
	}()
	return nil
}

func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return "error"
	case l >= slog.LevelWarn:
		return "warning"
	case l >= slog.LevelInfo:
		return "info"
	}
	return "debug"
}
