// Package cache stores the results of paid, slow provider calls (OCR,
// transcripts, annotations) under the state dir (SPEC §4.1:
// cache/ocr, cache/transcribe, cache/annotations), keyed by the content
// hash of the input plus the provider, model and options that shaped the
// result, so a re-index or reindex never pays for the same work twice.
//
// Entries are JSON files written atomically (lib/atomicfile); a reader sees
// a whole entry or none. A corrupt or unreadable entry is a miss.
package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Kinds of cached results, each a subdirectory of <state-dir>/cache.
const (
	OCR         = "ocr"
	Transcribe  = "transcribe"
	Annotations = "annotations"
)

// formatVersion is stored in every entry; entries of another version are
// misses.
const formatVersion = 1

// Store is the cache under one state dir. It is safe for concurrent use;
// concurrent Puts of one key leave one whole entry.
type Store struct {
	dir          string
	hits, misses atomic.Int64
}

// Open returns the cache of stateDir (<stateDir>/cache). Directories are
// created on first Put.
func Open(stateDir string) *Store {
	return &Store{dir: filepath.Join(stateDir, "cache")}
}

// Key derives an entry key from parts, e.g. Key(contentHash, provider,
// model, options). Parts are length-prefixed, so ("ab","c") and ("a","bc")
// differ.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ContentHash returns "sha256:<hex>" of data, the form of
// record.Document.ContentHash.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

type entry struct {
	V           int             `json:"v"`
	Kind        string          `json:"kind"`
	CreatedUnix int64           `json:"created_unix"`
	Data        json.RawMessage `json:"data"`
}

// Path is the file an entry lives in.
func (s *Store) Path(kind, key string) (string, error) {
	switch kind {
	case OCR, Transcribe, Annotations:
	default:
		return "", errcode.New(errcode.Internal, "cache: unknown kind %q", kind)
	}
	if len(key) != 64 {
		return "", errcode.New(errcode.Internal, "cache: key %q is not a Key result", key)
	}
	if _, err := hex.DecodeString(key); err != nil {
		return "", errcode.New(errcode.Internal, "cache: key %q is not a Key result", key)
	}
	return filepath.Join(s.dir, kind, key[:2], key+".json"), nil
}

// Get decodes the entry kind/key into v. It reports false, with a nil
// error, when there is no usable entry; a corrupt entry is removed.
func (s *Store) Get(kind, key string, v any) (bool, error) {
	p, err := s.Path(kind, key)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(p)
	if err != nil { // absent or unreadable: recompute
		s.misses.Add(1)
		return false, nil
	}
	var e entry
	if json.Unmarshal(b, &e) != nil || e.V != formatVersion || e.Kind != kind || json.Unmarshal(e.Data, v) != nil {
		os.Remove(p)
		s.misses.Add(1)
		return false, nil
	}
	s.hits.Add(1)
	return true, nil
}

// Put stores v (JSON-encoded) as the entry kind/key, replacing any old one.
func (s *Store) Put(kind, key string, v any) error {
	p, err := s.Path(kind, key)
	if err != nil {
		return err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "cache: encoding %s entry: %v", kind, err)
	}
	b, err := json.Marshal(entry{V: formatVersion, Kind: kind, CreatedUnix: time.Now().Unix(), Data: data})
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "cache: encoding %s entry: %v", kind, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return errcode.Wrap(errcode.Internal, err, "cache: %v", err)
	}
	if err := atomicfile.Write(p, b, 0o600); err != nil {
		return errcode.Wrap(errcode.Internal, err, "cache: writing %s entry: %v", kind, err)
	}
	return nil
}

// Stats returns how many Gets hit and missed since Open.
func (s *Store) Stats() (hits, misses int64) { return s.hits.Load(), s.misses.Load() }
