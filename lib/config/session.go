package config

import "github.com/dir2mcp/dir2mcp/lib/errcode"

// SetSessionSecret sets the secret at keyPath (e.g. "mistral.api_key") to
// a value typed at a prompt: it is used by this process only (source
// "session", SPEC §16.1.1), never written to a file or snapshot.
func (c *Config) SetSessionSecret(keyPath, value string) error {
	l := leafByPath[keyPath]
	if l == nil || l.kind != kindSecret {
		return errcode.FieldError(errcode.ConfigInvalid, keyPath, "%s is not a secret key", keyPath)
	}
	s := l.value(c).Addr().Interface().(*Secret)
	s.Value, s.Source = value, "session"
	return nil
}
