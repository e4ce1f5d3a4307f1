package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxStmts bounds the prepared statements a Store keeps (one per distinct
// query text; filtered searches vary theirs with the filter's shape).
const maxStmts = 64

// stmtCache holds the read pool's prepared statements for the queries a
// search runs every time, so they are compiled once, not per call.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// query runs q on the read pool through its cached prepared statement.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.rd.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// queryRowCached is queryRow through the statement cache.
func (s *Store) queryRowCached(ctx context.Context, q string, args ...any) *sql.Row {
	if st, err := s.stmt(ctx, q); err == nil && st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.queryRow(ctx, q, args...)
}

// stmt returns the prepared statement of q (nil when the cache is full).
func (s *Store) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	if len(c.m) >= maxStmts {
		return nil, nil
	}
	st, err := s.rd.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st, nil
}

// close closes the cached statements.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}
