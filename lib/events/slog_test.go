package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// Server and SDK logs come out in the event format: a human line on the
// error writer, or an NDJSON notice event; below the minimum nothing.
func TestLogHandlerWritesEvents(t *testing.T) {
	secret := "tok_" + strings.Repeat("l0g", 6)
	RegisterSecret(secret)
	var out, errOut bytes.Buffer
	log := slog.New(NewHuman(&out, &errOut, false).LogHandler(slog.LevelInfo)).With("session", "S1")
	log.Warn("calling notifications/resources/list_changed: stream gone", "err", errors.New("closed "+secret))
	log.Info("MCP session expired", "reason", "inactivity", "idle", 1500*time.Millisecond)
	log.Debug("chatty")
	want := "WARN: calling notifications/resources/list_changed: stream gone session=S1 err=\"closed [REDACTED]\"\n" +
		"MCP session expired session=S1 reason=inactivity idle=1.5s\n"
	if errOut.String() != want || out.Len() != 0 {
		t.Errorf("human logs:\nstderr %q\nwant   %q\nstdout %q", errOut.String(), want, out.String())
	}
	var q bytes.Buffer
	slog.New(NewHuman(&q, &q, true).LogHandler(slog.LevelInfo)).Info("hidden when quiet")
	if q.Len() != 0 {
		t.Errorf("quiet: %q", q.String())
	}

	var js bytes.Buffer
	slog.New(NewJSON(&js).LogHandler(slog.LevelWarn)).WithGroup("g").Warn("undelivered", "id", 7, "why", secret)
	var ev struct {
		Type, Level, Event string
		Data               map[string]any
	}
	if err := json.Unmarshal(js.Bytes(), &ev); err != nil || ev.Type != "event" || ev.Level != "warn" || ev.Event != "notice" ||
		ev.Data["message"] != "undelivered" || ev.Data["g.id"] != float64(7) || ev.Data["g.why"] != "[REDACTED]" {
		t.Errorf("JSON log event: %s (%v)", js.String(), err)
	}
}
