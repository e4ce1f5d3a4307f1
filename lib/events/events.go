// Package events emits dir2mcp's progress and lifecycle events: NDJSON
// event records (SPEC §3.2) for automation, or short human lines.
//
// Every string an Emitter writes passes through a redactor that replaces any
// registered secret (bearer token, API keys) with "[REDACTED]", so a secret
// that slips into an error message still never reaches a log or event.
package events

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Levels.
const (
	Info  = "info"
	Warn  = "warn"
	Error = "error"
)

// Emitter writes events. The zero value discards everything. It is safe for
// concurrent use.
type Emitter struct {
	mu     sync.Mutex
	json   *record.Writer
	human  io.Writer // info lines
	errOut io.Writer // warnings and errors
	quiet  bool
	divert func(level, line string)
}

// NewJSON returns an Emitter writing NDJSON event records to w.
func NewJSON(w io.Writer) *Emitter {
	rw := record.NewWriter(w)
	rw.AutoFlush = true
	return &Emitter{json: rw}
}

// NewHuman returns an Emitter writing human-readable lines: information to
// out, warnings and errors to errOut (so they never mix into output a user
// redirects). With quiet set only warnings and errors are written.
func NewHuman(out, errOut io.Writer, quiet bool) *Emitter {
	return &Emitter{human: out, errOut: errOut, quiet: quiet}
}

// Discard returns an Emitter that writes nothing.
func Discard() *Emitter { return &Emitter{} }

// JSON reports whether the emitter writes NDJSON.
func (e *Emitter) JSON() bool { return e != nil && e.json != nil }

// Emit writes one event.
func (e *Emitter) Emit(level, name string, data map[string]any) {
	if e == nil || (e.json == nil && e.human == nil) {
		return
	}
	if data == nil {
		data = map[string]any{}
	}
	redactMap(data)
	if e.json != nil {
		_ = e.json.Write(record.Event{
			Type: record.TypeEvent, V: record.EventVersion,
			TS:    time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
			Level: level, Event: name, Data: data,
		})
		return
	}
	w := e.human
	if level != Info && e.errOut != nil {
		w = e.errOut
	}
	e.writeHuman(w, level, name, data)
}

// writeHuman writes the human line of an event to w (nothing for info
// when quiet).
func (e *Emitter) writeHuman(w io.Writer, level, name string, data map[string]any) {
	if e.quiet && level == Info {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.divert != nil {
		e.divert(level, Redact(humanLine(level, name, data))+"\n")
		return
	}
	fmt.Fprintln(w, Redact(humanLine(level, name, data)))
}

// Divert hands every human line (Emit and Printf, after redaction, with
// its newline) to f instead of writing it, until the returned function is
// called: a terminal progress display prints them around its bar. f runs
// under the emitter's lock and must not call the emitter. No-op in JSON
// mode.
func (e *Emitter) Divert(f func(level, line string)) (restore func()) {
	if e == nil || e.json != nil {
		return func() {}
	}
	e.mu.Lock()
	e.divert = f
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.divert = nil
		e.mu.Unlock()
	}
}

// Printf writes a free-form human line (ignored in JSON mode and when quiet).
func (e *Emitter) Printf(format string, args ...any) {
	if e == nil || e.human == nil || e.quiet {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.divert != nil {
		e.divert(Info, Redact(fmt.Sprintf(format, args...)))
		return
	}
	fmt.Fprintf(e.human, "%s", Redact(fmt.Sprintf(format, args...)))
}

func humanLine(level, name string, data map[string]any) string {
	prefix := ""
	switch level {
	case Warn:
		prefix = "WARN: "
	case Error:
		prefix = "ERROR: "
	}
	if msg, ok := data["message"].(string); ok {
		if p, ok := data["rel_path"].(string); ok {
			return fmt.Sprintf("%s%s: %s", prefix, p, msg)
		}
		return prefix + msg
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{name}
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, data[k]))
	}
	return prefix + strings.Join(parts, " ")
}

var (
	secretsMu sync.RWMutex
	secrets   []string
)

// RegisterSecret makes every later Emit and Redact call replace s with
// "[REDACTED]". Values shorter than 8 bytes are ignored (too likely to
// collide with ordinary text).
func RegisterSecret(s string) {
	if len(s) < 8 {
		return
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	for _, x := range secrets {
		if x == s {
			return
		}
	}
	// A new slice each time: Secrets hands out the current one.
	secrets = append(secrets[:len(secrets):len(secrets)], s)
}

// Secrets returns the registered secret values, for a masker that must
// find where they occur (exclude.Redactor.WithLiterals), on every masking:
// it does not copy them, and the caller must not modify the slice. Never
// print them.
func Secrets() []string {
	secretsMu.RLock()
	defer secretsMu.RUnlock()
	return secrets
}

// Redact replaces every registered secret in s.
func Redact(s string) string {
	secretsMu.RLock()
	defer secretsMu.RUnlock()
	for _, x := range secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, "[REDACTED]")
		}
	}
	return s
}

func redactMap(m map[string]any) {
	for k, v := range m {
		switch t := v.(type) {
		case string:
			m[k] = Redact(t)
		case map[string]any:
			redactMap(t)
		case map[string]string:
			for kk, vv := range t {
				t[kk] = Redact(vv)
			}
		}
	}
}
