package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Derived values are facts computed from the store's content (its totals,
// the state of the vector files that mirror it) and kept in the settings
// table with the Generation they were computed at. Storing one is not a
// content change: it does not bump the generation, so a value stays valid
// until the next write, by this process or any other (every write goes
// through Update, which bumps it; so does a schema migration). A reader
// compares the stored generation with the current one and recomputes on a
// mismatch.

// derivedPrefix marks derived settings keys.
const derivedPrefix = "derived."

// keyCounts holds the Counts of a generation, as JSON. The key names the
// struct's shape (field names and types), so a build whose Counts differs
// never reads another's.
var keyCounts = func() string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%#v", Counts{})))
	return derivedPrefix + "counts." + hex.EncodeToString(h[:4])
}()

// Derived returns the value stored under key and the generation it was
// computed at, and the current generation, read in one transaction.
func (s *Store) Derived(ctx context.Context, key string) (value string, at, now Generation, ok bool, err error) {
	tx, err := s.rd.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return "", 0, 0, false, wrapRead(err, "read "+key)
	}
	defer tx.Rollback()
	now, err = generationIn(ctx, tx)
	if err != nil {
		return "", 0, 0, false, err
	}
	value, at, ok, err = derivedIn(ctx, tx, key)
	return value, at, now, ok, err
}

// SetDerived stores value under key as computed at generation at, without
// bumping the generation. A store opened read-only stores nothing.
func (s *Store) SetDerived(ctx context.Context, key string, at Generation, value string) error {
	if s.wr == nil {
		return nil
	}
	if !strings.HasPrefix(key, derivedPrefix) {
		return errors.New("store: derived key without the " + derivedPrefix + " prefix: " + key)
	}
	v := strconv.FormatInt(int64(at), 10) + " " + value
	return s.withRetry(ctx, func() error {
		_, err := s.wr.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value WHERE value <> excluded.value`, key, v)
		return err
	})
}

type queryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func generationIn(ctx context.Context, q queryer) (Generation, error) {
	var g int64
	err := q.QueryRowContext(ctx, "SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'generation'").Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return Generation(g), wrapRead(err, "read generation")
}

func derivedIn(ctx context.Context, q queryer, key string) (string, Generation, bool, error) {
	var v string
	err := q.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, wrapRead(err, "read "+key)
	}
	g, rest, ok := strings.Cut(v, " ")
	n, err := strconv.ParseInt(g, 10, 64)
	if !ok || err != nil {
		return "", 0, false, nil // not ours: recompute
	}
	return rest, Generation(n), true, nil
}

// countsMemo keeps the last Counts a store computed or read, with its
// generation, for stores that cannot write the derived value (read-only).
type countsMemo struct {
	mu  sync.Mutex
	gen Generation
	c   *Counts
}

// Counts reads the current totals. They are counted once per generation:
// a store whose content did not change since they were last counted (a
// restart over an unchanged index, the end of a no-op run) reads them from
// the settings table instead of counting every document and chunk
// (0.13 s at 546k chunks).
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	tx, err := s.rd.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Counts{}, wrapRead(err, "count documents")
	}
	defer tx.Rollback()
	gen, err := generationIn(ctx, tx)
	if err != nil {
		return Counts{}, err
	}
	s.counts.mu.Lock()
	if s.counts.c != nil && s.counts.gen == gen {
		c := s.counts.c.clone()
		s.counts.mu.Unlock()
		return c, nil
	}
	s.counts.mu.Unlock()
	if v, at, ok, err := derivedIn(ctx, tx, keyCounts); err == nil && ok && at == gen {
		var c Counts
		if json.Unmarshal([]byte(v), &c) == nil && c.valid() {
			s.memoCounts(gen, c)
			return c, nil
		}
	}
	c, err := countIn(ctx, tx)
	if err != nil {
		return c, err
	}
	tx.Rollback() // the snapshot of gen is no longer needed
	s.memoCounts(gen, c)
	if b, err := json.Marshal(c); err == nil {
		// A failure only means counting again next time.
		_ = s.SetDerived(context.WithoutCancel(ctx), keyCounts, gen, string(b))
	}
	return c, nil
}

func (s *Store) memoCounts(gen Generation, c Counts) {
	cc := c.clone()
	s.counts.mu.Lock()
	s.counts.gen, s.counts.c = gen, &cc
	s.counts.mu.Unlock()
}

// valid reports whether c was decoded whole (its maps are never nil).
func (c Counts) valid() bool {
	return c.ByStatus != nil && c.ByDocType != nil && c.ChunksByKind != nil
}

func (c Counts) clone() Counts {
	cp := func(m map[string]int64) map[string]int64 {
		out := make(map[string]int64, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	c.ByStatus, c.ByDocType, c.ChunksByKind = cp(c.ByStatus), cp(c.ByDocType), cp(c.ChunksByKind)
	return c
}
