package config

import (
	"encoding/json"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestDurationParseAndFormat(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		out  string
	}{
		{"24h", 24 * time.Hour, "24h"},
		{"30m", 30 * time.Minute, "30m"},
		{"90s", 90 * time.Second, "1m30s"},
		{"1h30m", 90 * time.Minute, "1h30m"},
		{"1h0m30s", time.Hour + 30*time.Second, "1h0m30s"},
		{"0", 0, "0"},
		{"0s", 0, "0"},
		{"250ms", 250 * time.Millisecond, "250ms"},
	}
	for _, c := range cases {
		d, err := parseDuration(c.in)
		if err != nil || d.Std() != c.want || d.String() != c.out {
			t.Errorf("%q → %v %q %v, want %v %q", c.in, d.Std(), d.String(), err, c.want, c.out)
		}
		if back, err := parseDuration(d.String()); err != nil || back != d {
			t.Errorf("%q does not round trip", d.String())
		}
	}
	for _, bad := range []string{"", "1 day", "-5m", "10", "abc"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDurationCodecs(t *testing.T) {
	var v struct {
		A Duration `yaml:"a" json:"a"`
		B Duration `yaml:"b" json:"b"`
	}
	if err := yaml.Unmarshal([]byte("a: 24h\nb: 0\n"), &v); err != nil || v.A.Std() != 24*time.Hour || v.B != 0 {
		t.Fatalf("yaml: %+v %v", v, err)
	}
	if err := yaml.Unmarshal([]byte("a: 90\n"), &v); err == nil {
		t.Errorf("yaml bare 90 accepted")
	}
	out, _ := yaml.Marshal(v)
	if string(out) != "a: 24h\nb: \"0\"\n" {
		t.Errorf("yaml out = %q", out)
	}
	j, _ := json.Marshal(v)
	if string(j) != `{"a":"24h","b":"0"}` {
		t.Errorf("json out = %s", j)
	}
	if err := json.Unmarshal([]byte(`{"a":"30m","b":0}`), &v); err != nil || v.A.Std() != 30*time.Minute || v.B != 0 {
		t.Errorf("json in: %+v %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"a":5}`), &v); err == nil {
		t.Errorf("json bare 5 accepted")
	}
}
