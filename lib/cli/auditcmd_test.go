package cli

import (
	"testing"
	"time"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"30d": now.Add(30 * 24 * time.Hour), "2w": now.Add(14 * 24 * time.Hour), "12h": now.Add(12 * time.Hour),
		"90s": now.Add(90 * time.Second), "2026-12-31": time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC),
		"2026-04-01T10:00:00Z": time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC),
	} {
		if got, err := parseWhen("--expires", in, now, true); err != nil || !got.Equal(want) {
			t.Errorf("parseWhen(%q, after) = %v %v", in, got, err)
		}
	}
	if got, _ := parseWhen("--since", "24h", now, false); !got.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("--since 24h = %v", got)
	}
	for _, bad := range []string{"soon", "-3d", "3y", "0d", ""} {
		if _, err := parseWhen("--since", bad, now, false); err == nil {
			t.Errorf("parseWhen(%q) accepted", bad)
		}
	}
}
