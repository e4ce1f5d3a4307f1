// Package store is dir2mcp's metadata store: meta.sqlite in the state
// directory, holding documents, representations, chunks, spans, settings and
// the log of changes the keyword index (lib/postings) applies (SPEC §5).
//
// A Store opened for writing holds one writer connection whose transactions
// take the write lock at BEGIN; readers use a separate pool and, thanks to
// WAL, never wait for the writer. Several processes may open the same file:
// transient "database is locked" conditions are retried, and a write that
// still cannot proceed is returned as an error, never dropped.
package store

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// FileName is the metadata store's file name inside the state directory.
const FileName = "meta.sqlite"

// Store is an open meta.sqlite.
type Store struct {
	path string
	rd   *sql.DB // read pool (query_only)
	wr   *sql.DB // single writer connection; nil when read-only

	attachMu   sync.Mutex // serializes AttachPostingsOnce
	hookMu     sync.Mutex
	onPostings func([]PostingsChange)
	maint      PostingsMaintainer
	// counts memoizes Counts per generation (derived.go).
	counts countsMemo
}

// Options control how a Store is opened.
type Options struct {
	// ReadOnly opens only the read pool. The file must already exist unless
	// Create is also set (the schema is then created once and the writer closed).
	ReadOnly bool
	// Create makes the state directory and an empty store if missing.
	Create bool
}

// Open opens (and if needed creates and migrates) the store in stateDir.
func Open(ctx context.Context, stateDir string, opt Options) (*Store, error) {
	path := filepath.Join(stateDir, FileName)
	// Opened here rather than only stat'ed: SQLite reports a file this
	// user may not open as "unable to open database file", where the file
	// system's own error says why (and is not mistaken for a damaged index).
	mode := os.O_RDWR
	if opt.ReadOnly {
		mode = os.O_RDONLY
	}
	if f, err := os.OpenFile(path, mode, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot open %s: %v", path, err)
	} else {
		if !opt.Create {
			return nil, errcode.New(errcode.IndexNotReady, "no index at %s (run `dir2mcp up` or `dir2mcp-scan | dir2mcp-extract` first)", stateDir)
		}
		if err := os.MkdirAll(stateDir, 0o700); err != nil {
			return nil, errcode.Wrap(errcode.StoreCorrupt, err, "cannot create state dir %s: %v", stateDir, err)
		}
		// Created private here: SQLite gives -wal and -shm the mode of
		// the database file, and it holds the indexed text.
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			f.Close()
		}
	}
	s := &Store{path: path}
	wr, err := sql.Open(driverName, dsn(path, false))
	if err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "open %s: %v", path, err)
	}
	wr.SetMaxOpenConns(1)
	wr.SetMaxIdleConns(1)
	wr.SetConnMaxLifetime(0)
	if err := s.withRetry(ctx, func() error { return migrate(ctx, wr) }); err != nil {
		wr.Close()
		return nil, err
	}
	if opt.ReadOnly {
		wr.Close()
	} else {
		s.wr = wr
	}
	rd, err := sql.Open(driverName, dsn(path, true))
	if err != nil {
		s.Close()
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "open %s: %v", path, err)
	}
	n := runtime.GOMAXPROCS(0) * 2
	rd.SetMaxOpenConns(n)
	rd.SetMaxIdleConns(n)
	s.rd = rd
	return s, nil
}

// Close stops the keyword index maintainer, if any, and closes all
// connections.
func (s *Store) Close() error {
	s.hookMu.Lock()
	m := s.maint
	s.maint = nil
	s.hookMu.Unlock()
	if m != nil {
		m.Close()
	}
	var errs []error
	if s.rd != nil {
		errs = append(errs, s.rd.Close())
	}
	if s.wr != nil {
		// Fold the WAL back so the file is self-contained for readers/copies.
		_, _ = s.wr.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		errs = append(errs, s.wr.Close())
	}
	return errors.Join(errs...)
}

// ReadDB exposes the read pool for packages that build their own queries
// (retrieval). It must only be used for reads.
func (s *Store) ReadDB() *sql.DB { return s.rd }

const driverName = "sqlite3_dir2mcp"

func init() {
	sql.Register(driverName, &sqlite3.SQLiteDriver{})
}

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_busy_timeout", "10000")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "on")
	q.Set("_cache_size", "-16000")
	// Each connection keeps the statements it ran prepared: a search runs
	// the same few query texts every time (chunk lookups take their ids as
	// one JSON array for that reason), and indexing runs the same few
	// inserts and updates per document and chunk (a no-op run one update
	// per file).
	q.Set("_stmt_cache_size", "32")
	if readOnly {
		q.Set("_query_only", "true")
	} else {
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Tx is a write transaction. Use Store.Update to get one.
type Tx struct {
	tx  *sql.Tx
	now int64
	// hook receives changes after the commit (see OnPostings).
	hook    func([]PostingsChange)
	changes []PostingsChange
}

// Update runs fn in one write transaction, committing if fn returns nil.
// Busy/locked conditions are retried with backoff; fn may therefore run more
// than once and must not have side effects outside the transaction. After
// the commit, the postings hook (OnPostings) gets the transaction's
// changes.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	if s.wr == nil {
		return errcode.New(errcode.Internal, "store opened read-only")
	}
	var done *Tx
	err := s.withRetry(ctx, func() error {
		sqlTx, err := s.wr.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		tx := &Tx{tx: sqlTx, now: nowUnix(), hook: s.postingsHook()}
		if err := fn(tx); err != nil {
			_ = sqlTx.Rollback()
			return err
		}
		if _, err := sqlTx.Exec(bumpGeneration); err != nil {
			_ = sqlTx.Rollback()
			return err
		}
		if err := sqlTx.Commit(); err != nil {
			return err
		}
		done = tx
		return nil
	})
	if err == nil && done.hook != nil && len(done.changes) > 0 {
		done.hook(done.changes)
	}
	return err
}

func (s *Store) writeErr(err error) error {
	if err == nil {
		return nil
	}
	var ce *errcode.Error
	if errors.As(err, &ce) {
		return err
	}
	return errcode.Wrap(errcode.StoreCorrupt, err, "write %s: %v", s.path, err)
}

// Exec runs a single read query helper on the read pool.
func (s *Store) queryRow(ctx context.Context, q string, args ...any) *sql.Row {
	return s.rd.QueryRowContext(ctx, q, args...)
}

func wrapRead(err error, what string) error {
	if err == nil {
		return nil
	}
	return errcode.Wrap(errcode.StoreCorrupt, err, "%s: %v", what, err)
}

// inSnapshot runs fn in a read transaction, with the generation its
// snapshot is at.
func (s *Store) inSnapshot(ctx context.Context, fn func(tx *sql.Tx, gen Generation) error) error {
	tx, err := s.rd.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return wrapRead(err, "begin read")
	}
	defer tx.Rollback()
	gen, err := generationIn(ctx, tx)
	if err != nil {
		return err
	}
	return fn(tx, gen)
}
