package events

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestRegisteredSecretsAreRedacted(t *testing.T) {
	secret := "tok_" + strings.Repeat("s3cr3t", 5)
	RegisterSecret(secret)
	RegisterSecret("short") // too short to register
	var b bytes.Buffer
	e := NewJSON(&b)
	e.Emit(Warn, "file_error", map[string]any{"message": "auth failed with " + secret, "nested": map[string]any{"k": secret},
		"headers": map[string]string{"Authorization": "Bearer " + secret}})
	if strings.Contains(b.String(), secret) {
		t.Fatalf("secret leaked: %s", b.String())
	}
	var ev struct {
		Type, V, TS, Level, Event string
		Data                      map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &ev); err != nil || ev.Type != "event" || ev.V != "1.0" || ev.Level != "warn" || ev.Event != "file_error" {
		t.Fatalf("event %s: %v", b.String(), err)
	}
	var h bytes.Buffer
	NewHuman(&h, &h, false).Emit(Error, "fatal", map[string]any{"message": "boom " + secret})
	if strings.Contains(h.String(), secret) || !strings.HasPrefix(h.String(), "ERROR: boom [REDACTED]") {
		t.Fatalf("human line %q", h.String())
	}
	if Redact("short text") != "short text" {
		t.Error("short values must not be registered")
	}
}

func TestQuietHidesInfo(t *testing.T) {
	var b bytes.Buffer
	e := NewHuman(&b, &b, true)
	e.Emit(Info, "scan_progress", map[string]any{"scanned": 1})
	e.Printf("progress\n")
	e.Emit(Warn, "notice", map[string]any{"message": "careful"})
	if b.String() != "WARN: careful\n" {
		t.Errorf("quiet output %q", b.String())
	}
}

func TestHumanWarningsGoToErrOut(t *testing.T) {
	var out, errOut bytes.Buffer
	e := NewHuman(&out, &errOut, false)
	e.Emit(Info, "notice", map[string]any{"message": "fine"})
	e.Emit(Warn, "config_warning", map[string]any{"message": "plaintext key"})
	if out.String() != "fine\n" || errOut.String() != "WARN: plaintext key\n" {
		t.Errorf("out %q, errOut %q", out.String(), errOut.String())
	}
}

// Divert takes every human line (redacted) until restored; JSON emitters
// are not diverted.
func TestDivert(t *testing.T) {
	var out, errOut bytes.Buffer
	e := NewHuman(&out, &errOut, false)
	RegisterSecret("divert-secret-0123456789")
	var got []string
	restore := e.Divert(func(level, line string) { got = append(got, level+"|"+line) })
	e.Emit(Warn, "notice", map[string]any{"message": "key divert-secret-0123456789 leaked"})
	e.Printf("Indexing complete\n")
	restore()
	e.Printf("after\n")
	want := []string{"warn|WARN: key [REDACTED] leaked\n", "info|Indexing complete\n"}
	if strings.Join(got, "") != strings.Join(want, "") || out.String() != "after\n" || errOut.Len() != 0 {
		t.Errorf("diverted %q, out %q, err %q", got, out.String(), errOut.String())
	}
	var js bytes.Buffer
	j := NewJSON(&js)
	j.Divert(func(string, string) { t.Error("a JSON emitter was diverted") })()
	j.Emit(Info, "x", nil)
	if js.Len() == 0 {
		t.Error("JSON event not written")
	}
}
