package config

import (
	"encoding/json"
	"strings"
)

// IsSet reports whether the secret has a non-empty value.
func (s Secret) IsSet() bool { return s.Value != "" }

// EnvName returns the environment variable the secret is (or would be)
// read from: the NAME of an "env:NAME" source, else "".
func (s Secret) EnvName() string {
	name, ok := strings.CutPrefix(s.Source, "env:")
	if !ok {
		return ""
	}
	return name
}

// Describe returns a display form that names the secret's source and never
// its value, e.g. "<from env MISTRAL_API_KEY>" or "<unset>".
func (s Secret) Describe() string {
	kind, detail, _ := strings.Cut(s.Source, ":")
	if !s.IsSet() {
		if kind == "env" {
			return "<unset; expects env " + detail + ">"
		}
		return "<unset>"
	}
	switch kind {
	case "env":
		return "<from env " + detail + ">"
	case "file":
		return "<from secrets file " + detail + ">"
	case "config":
		return "<from config file (plaintext)>"
	case "":
		return "<set>"
	}
	return "<from " + kind + ">"
}

// String returns Describe, so formatting a Config with %v never prints a
// secret.
func (s Secret) String() string { return s.Describe() }

// GoString returns Describe, so %#v never prints a secret either.
func (s Secret) GoString() string { return "config.Secret" + s.Describe() }

// MarshalJSON writes Describe, so a Config marshalled directly never
// carries a secret.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.Describe()) }

// MarshalYAML writes Describe, for the same reason as MarshalJSON.
func (s Secret) MarshalYAML() (any, error) { return s.Describe(), nil }
