package state

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Token is a bearer token and where it came from. Value must never be
// logged, printed or written anywhere but secret.token.
type Token struct {
	Value string
	// Source is "secret.token", "env" or "file" (SPEC §3.2 token_source).
	Source string
	// File is the token file path for sources secret.token and file.
	File string
	// EnvName is the variable name for source env.
	EnvName string
}

// EnsureToken returns the token in secret.token, creating a new random one
// (mode 0600) if the file does not exist. A token file readable by group or
// others is tightened to 0600.
func (d Dir) EnsureToken() (Token, error) {
	path := d.Join(TokenFile)
	if t, err := ReadTokenFile(path); err == nil {
		t.Source = "secret.token"
		return t, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return Token{}, err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return Token{}, err
	}
	v := hex.EncodeToString(b)
	if err := d.Ensure(); err != nil {
		return Token{}, err
	}
	if err := atomicfile.Write(path, []byte(v+"\n"), 0o600); err != nil {
		return Token{}, errcode.Wrap(errcode.StoreCorrupt, err, "cannot write %s: %v", path, err)
	}
	return Token{Value: v, Source: "secret.token", File: path}, nil
}

// ReadTokenFile reads a single-line token from path. Failures are
// CONFIG_INVALID; the error wraps os.ErrNotExist when the file is missing.
func ReadTokenFile(path string) (Token, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		// Still errors.Is(err, os.ErrNotExist) for a missing file.
		return Token{}, errcode.Wrap(errcode.ConfigInvalid, err, "cannot read token file %s: %v", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600)
	}
	v := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
	if len(v) < 16 {
		return Token{}, errcode.New(errcode.ConfigInvalid, "token file %s must hold one token of at least 16 characters", path)
	}
	if strings.ContainsAny(v, " \t") {
		return Token{}, errcode.New(errcode.ConfigInvalid, "token in %s contains whitespace", path)
	}
	return Token{Value: v, Source: "file", File: path}, nil
}

// Describe is a human description of where the token lives, never the value.
func (t Token) Describe() string {
	switch t.Source {
	case "env":
		return fmt.Sprintf("source=env, from $%s", t.EnvName)
	case "file":
		return fmt.Sprintf("source=file, from --auth file:%s", t.File)
	case "secret.token":
		return fmt.Sprintf("source=secret.token, stored in %s", t.File)
	}
	return "disabled"
}
