package tokens

import (
	"encoding/json"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Lookup errors. Expired and revoked tokens come back with their entry, so
// the refusal can name the label.
var (
	ErrUnknown = errors.New("unknown token")
	ErrExpired = errors.New("token expired")
	ErrRevoked = errors.New("token revoked")
)

// Registry answers token lookups for a running server from the tokens
// file, re-reading it whenever it changed (one stat per lookup), and
// records when each token was last used (UsageName, written by Flush).
// It is safe for concurrent use.
type Registry struct {
	path, usagePath string

	mu     sync.Mutex
	fi     os.FileInfo // the file read last (nil: none)
	byHash map[string]Token
	err    error // why the file cannot be used (insecure, malformed)
	used   map[string]time.Time
	dirty  bool
}

// NewRegistry serves the tokens file at path, recording use in usagePath.
// It fails when the file exists and cannot be used (mode, syntax), so a
// server refuses to start on it.
func NewRegistry(path, usagePath string) (*Registry, error) {
	r := &Registry{path: path, usagePath: usagePath, used: ReadUsage(usagePath)}
	r.reload()
	return r, r.err
}

// reload re-reads the file if it changed since the last read.
func (r *Registry) reload() {
	fi, err := os.Stat(r.path)
	if errors.Is(err, os.ErrNotExist) {
		r.fi, r.byHash, r.err = nil, nil, nil
		return
	}
	if err == nil && r.fi != nil && os.SameFile(fi, r.fi) && fi.ModTime().Equal(r.fi.ModTime()) && fi.Size() == r.fi.Size() && fi.Mode() == r.fi.Mode() {
		return
	}
	tf, _, err := load(r.path)
	r.fi, r.err = fi, err
	r.byHash = map[string]Token{}
	if err != nil {
		return
	}
	for _, t := range tf.Tokens {
		r.byHash[t.SHA256] = t
	}
}

// Lookup returns the entry of the token secret at now: ErrUnknown for no
// entry, ErrExpired or ErrRevoked (with the entry) for one that no longer
// works, the file's error (CONFIG_INVALID) when it cannot be used. A
// working token's use is recorded.
func (r *Registry) Lookup(secret string, now time.Time) (Token, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reload()
	if r.err != nil {
		return Token{}, r.err
	}
	t, ok := r.byHash[Hash(secret)]
	if !ok {
		return Token{}, ErrUnknown
	}
	switch t.State(now) {
	case Revoked:
		return t, ErrRevoked
	case Expired:
		return t, ErrExpired
	}
	if last := r.used[t.Label]; now.Sub(last) >= time.Second {
		r.used[t.Label] = now.UTC().Truncate(time.Second)
		r.dirty = true
	}
	return t, nil
}

// Flush writes the last-use times if they changed since the last Flush.
func (r *Registry) Flush() error {
	r.mu.Lock()
	if !r.dirty {
		r.mu.Unlock()
		return nil
	}
	b, err := json.MarshalIndent(r.used, "", "  ")
	r.dirty = false
	r.mu.Unlock()
	if err != nil {
		return err
	}
	if err := atomicfile.Write(r.usagePath, append(b, '\n'), 0o600); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot write %s: %v", r.usagePath, err)
	}
	return nil
}

// ReadUsage returns the last-use times recorded at path (label → time).
func ReadUsage(path string) map[string]time.Time {
	m := map[string]time.Time{}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return m
}
