package events

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// LogHandler returns a slog.Handler that writes records at or above min
// as this emitter's "notice" events, so the server's and the MCP SDK's logs
// have the one format of every other event: an NDJSON event whose data
// holds the message and the attributes (JSON mode), or a human line
// "[WARN: |ERROR: ]message key=value …" on the error writer (never on a
// command's output; info lines are dropped when quiet). Secrets are
// redacted like in every event.
func (e *Emitter) LogHandler(min slog.Level) slog.Handler {
	return &logHandler{e: e, min: min}
}

type logHandler struct {
	e      *Emitter
	min    slog.Level
	attrs  []slog.Attr
	prefix string // group prefix of later attributes: "g."
}

func (h *logHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.min && h.e != nil && (h.e.json != nil || h.e.human != nil)
}

func (h *logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]slog.Attr{}, h.attrs...)
	for _, a := range as {
		c.attrs = append(c.attrs, slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
	}
	return &c
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix = h.prefix + name + "."
	return &c
}

func (h *logHandler) Handle(_ context.Context, r slog.Record) error {
	level := Info
	switch {
	case r.Level >= slog.LevelError:
		level = Error
	case r.Level >= slog.LevelWarn:
		level = Warn
	}
	data := map[string]any{}
	var keys []string
	add := func(a slog.Attr) {
		if a.Key == "" {
			return
		}
		data[a.Key] = logValue(a.Value.Resolve())
		keys = append(keys, a.Key)
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool {
		add(slog.Attr{Key: h.prefix + a.Key, Value: a.Value})
		return true
	})
	if h.e.json != nil {
		data["message"] = r.Message
		h.e.Emit(level, record.EvNotice, data)
		return nil
	}
	line := []string{r.Message}
	for _, k := range keys {
		v := fmt.Sprint(data[k])
		if v == "" || strings.ContainsAny(v, " \t\n\"=") {
			v = strconv.Quote(v)
		}
		line = append(line, k+"="+v)
	}
	w := h.e.errOut
	if w == nil {
		w = h.e.human
	}
	h.e.writeHuman(w, level, record.EvNotice, map[string]any{"message": strings.Join(line, " ")})
	return nil
}

// logValue is an attribute value as an event carries it: strings, numbers
// and booleans as they are, durations and times as text, errors as their
// message.
func logValue(v slog.Value) any {
	switch v.Kind() {
	case slog.KindDuration:
		return v.Duration().String()
	case slog.KindTime:
		return v.Time().UTC().Format(time.RFC3339Nano)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return err.Error()
		}
		if s, ok := v.Any().(fmt.Stringer); ok {
			return s.String()
		}
	case slog.KindGroup:
		m := map[string]any{}
		for _, a := range v.Group() {
			m[a.Key] = logValue(a.Value.Resolve())
		}
		return m
	}
	return v.Any()
}
