// Package tokens manages dir2mcp's scoped bearer tokens: a tokens file in
// the state directory (tokens.json, mode 0600, refused when group or world
// can read it) holding named tokens, each with a tool allowlist, rel_path
// prefixes and an optional expiry. Only a SHA-256 of each token is stored;
// the token itself is shown once, when it is added. A revoked token stays
// in the file as a tombstone so its refusals can still be attributed. A
// Registry serves lookups to a running server and picks up changes to the
// file on the next request.
package tokens

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// File names inside the state directory.
const (
	FileName  = "tokens.json"
	UsageName = "tokens.used.json"
)

// OwnerLabel is the label of the server's own token (secret.token, an env
// or --auth file token): full scope, never in the tokens file.
const OwnerLabel = "owner"

// Prefix starts every scoped token, so secret scanners (and dir2mcp's own
// redaction) recognise one: d2m_ and 64 hex digits.
const Prefix = "d2m_"

// Token is one entry of the tokens file.
type Token struct {
	Label string `json:"label"`
	// SHA256 is the hex SHA-256 of the token; the token is never stored.
	SHA256 string `json:"sha256"`
	// Tools and Paths are the scope: tool names and rel_path prefixes
	// ("docs/" a directory, "README.md" a file); empty = all.
	Tools   []string  `json:"tools,omitempty"`
	Paths   []string  `json:"paths,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires,omitzero"`
	Revoked time.Time `json:"revoked,omitzero"`
}

// Token states.
const (
	Active  = "active"
	Expired = "expired"
	Revoked = "revoked"
)

// State is Active, Expired or Revoked at now.
func (t Token) State(now time.Time) string {
	switch {
	case !t.Revoked.IsZero():
		return Revoked
	case !t.Expires.IsZero() && !now.Before(t.Expires):
		return Expired
	}
	return Active
}

// file is the tokens file's JSON.
type file struct {
	Version int     `json:"version"`
	Tokens  []Token `json:"tokens"`
}

// Hash is the stored form of a token.
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

var labelRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// CheckLabel validates a token label.
func CheckLabel(label string) error {
	if !labelRE.MatchString(label) {
		return errcode.FieldError(errcode.ConfigInvalid, "NAME", "token name %q: use 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", label)
	}
	if label == OwnerLabel {
		return errcode.FieldError(errcode.ConfigInvalid, "NAME", "%q names the server's own token; choose another name", label)
	}
	return nil
}

// CleanPaths normalises rel_path prefixes: relative, slash-separated,
// without "." or ".." segments; a trailing "/" is kept.
func CleanPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
		if p == "" {
			continue
		}
		dir := strings.HasSuffix(p, "/")
		c := path.Clean(strings.TrimPrefix(p, "./"))
		if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") || c == "." {
			return nil, errcode.FieldError(errcode.ConfigInvalid, "--paths", "path prefix %q must be a directory or file relative to the root, e.g. docs/", p)
		}
		if dir {
			c += "/"
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// load reads the tokens file at p: no file is no tokens. A file readable
// by group or others is refused (CONFIG_INVALID).
func load(p string) (file, os.FileInfo, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return file{Version: 1}, nil, nil
	}
	if err != nil {
		return file{}, nil, errcode.Wrap(errcode.ConfigInvalid, err, "cannot read tokens file %s: %v", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return file{}, nil, errcode.Wrap(errcode.ConfigInvalid, err, "cannot read tokens file %s: %v", p, err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return file{}, fi, errcode.New(errcode.ConfigInvalid, "tokens file %s is readable by group or others (mode %04o) and is not used; run chmod 600 %s", p, perm, p)
	}
	var tf file
	if err := json.NewDecoder(f).Decode(&tf); err != nil {
		return file{}, fi, errcode.Wrap(errcode.ConfigInvalid, err, "tokens file %s is not valid JSON: %v", p, err)
	}
	if tf.Version != 1 {
		return file{}, fi, errcode.New(errcode.ConfigInvalid, "tokens file %s has version %d; this dir2mcp reads version 1", p, tf.Version)
	}
	return tf, fi, nil
}

// List returns the tokens of the file at p, revoked ones included.
func List(p string) ([]Token, error) {
	tf, _, err := load(p)
	return tf.Tokens, err
}

// update runs fn on the tokens file under a lock (locks/tokens.json.lock
// beside it) and writes the result atomically with mode 0600.
func update(p string, fn func(*file) error) error {
	locks := filepath.Join(filepath.Dir(p), "locks")
	if err := os.MkdirAll(locks, 0o700); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot create %s: %v", locks, err)
	}
	lock, err := os.OpenFile(filepath.Join(locks, filepath.Base(p)+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot lock %s: %v", p, err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot lock %s: %v", p, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	tf, _, err := load(p)
	if err != nil {
		return err
	}
	if err := fn(&tf); err != nil {
		return err
	}
	b, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(p, append(b, '\n'), 0o600); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot write %s: %v", p, err)
	}
	return nil
}

// Add creates a token named label with the given scope and expiry (zero:
// none) in the file at p, and returns the token. It is the only time the
// token is available: only its hash is stored. A label in use by an active
// or expired token is refused; a revoked one is replaced.
func Add(p, label string, tools, paths []string, expires, now time.Time) (string, Token, error) {
	if err := CheckLabel(label); err != nil {
		return "", Token{}, err
	}
	if !expires.IsZero() && !expires.After(now) {
		return "", Token{}, errcode.FieldError(errcode.ConfigInvalid, "--expires", "the expiry %s is in the past", expires.Format(time.RFC3339))
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", Token{}, err
	}
	secret := Prefix + hex.EncodeToString(b)
	t := Token{Label: label, SHA256: Hash(secret), Tools: tools, Paths: paths, Created: now.UTC().Truncate(time.Second)}
	if !expires.IsZero() {
		t.Expires = expires.UTC().Truncate(time.Second)
	}
	err := update(p, func(tf *file) error {
		i := slices.IndexFunc(tf.Tokens, func(x Token) bool { return x.Label == label })
		switch {
		case i < 0:
			tf.Tokens = append(tf.Tokens, t)
		case tf.Tokens[i].State(now) == Revoked:
			tf.Tokens[i] = t
		default:
			return errcode.FieldError(errcode.ConfigInvalid, "NAME", "a token named %q exists; revoke it first (dir2mcp token revoke %s)", label, label)
		}
		return nil
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// Revoke marks the token named label revoked. A running server refuses it
// from its next request.
func Revoke(p, label string, now time.Time) error {
	return update(p, func(tf *file) error {
		i := slices.IndexFunc(tf.Tokens, func(x Token) bool { return x.Label == label })
		if i < 0 {
			return errcode.FieldError(errcode.InvalidField, "NAME", "no token named %q (see dir2mcp token list)", label)
		}
		if tf.Tokens[i].Revoked.IsZero() {
			tf.Tokens[i].Revoked = now.UTC().Truncate(time.Second)
		}
		return nil
	})
}
