package config

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written in config as a Go duration string
// ("24h", "30m", "90s", "1h30m"). "0" or a bare 0 means zero, which options
// document as "disabled". Negative durations are rejected.
type Duration time.Duration

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String formats d compactly: "24h", "1h30m", "90s" is "1m30s", zero is "0".
func (d Duration) String() string {
	if d == 0 {
		return "0"
	}
	s := time.Duration(d).String()
	// time.Duration prints "24h0m0s"; drop the zero-valued trailing units.
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// parseDuration parses the config form of a duration; the returned error
// says what is allowed.
func parseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration like 24h, 30m, 90s or 0 (disabled), got %q", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("want a non-negative duration, got %q", s)
	}
	return Duration(v), nil
}

// MarshalText returns the String form.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses "24h", "30m", "90s" or "0".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := parseDuration(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalYAML returns the String form.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML accepts a duration string or the bare integer 0. Other bare
// numbers are rejected because their unit would be a guess.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a duration like 24h, 30m, 90s or 0 (disabled)")
	}
	return d.UnmarshalText([]byte(n.Value))
}

// MarshalJSON returns the String form as a JSON string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON accepts a duration string or the number 0.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n float64
		if json.Unmarshal(b, &n) != nil || n != 0 {
			return fmt.Errorf("want a duration string like 24h, 30m, 90s or 0")
		}
		*d = 0
		return nil
	}
	return d.UnmarshalText([]byte(s))
}
