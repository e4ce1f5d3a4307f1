package store

// #include <stdint.h>
// int64_t d2mLensNew(const int64_t *ids, const int *lens, int n);
// void d2mLensDrop(int64_t h);
// int64_t d2mSinkNew(int n);
// void d2mSinkTake(int64_t h, int64_t *out, int n);
import "C"

import (
	"context"
	"database/sql"
	"sync"
	"time"
	"unsafe"
)

// docLens holds the token count of every full-text row of one generation
// in C memory (bm25.c), so ranking a row does not look its length up in
// the %_docsize table: one B-tree search per scored row, a third of a
// lexical query's time on the Go tree. The counts are loaded in the
// background when a search finds them missing or of an older generation
// that has held for a moment; until then searches read %_docsize as
// before, so results never depend on whether they are loaded.
type docLens struct {
	mu      sync.Mutex
	gen     Generation
	handle  int64 // 0: none loaded
	loading bool
	seen    Generation // of the last search
	seenAt  time.Time  // when a search first saw it
	notLoad time.Time  // no new load before this
	done    chan struct{}
	cancel  context.CancelFunc // of the load in flight
}

// settle is how long a generation must have held before a search loads
// its row lengths.
const settle = 100 * time.Millisecond

// lensHandle returns the handle of the lengths of generation gen (0 when
// they are not loaded) and starts loading them if they should be.
func (s *Store) lensHandle(gen Generation) int64 {
	l := &s.lens
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handle != 0 && l.gen == gen {
		return l.handle
	}
	// Load once a generation has held for a moment: not while writes
	// keep making new ones.
	now := time.Now()
	if l.seen != gen {
		l.seen, l.seenAt = gen, now
	}
	if now.Sub(l.seenAt) >= settle && !l.loading && !now.Before(l.notLoad) && s.rd != nil {
		l.loading = true
		l.done = make(chan struct{})
		var ctx context.Context
		ctx, l.cancel = context.WithCancel(context.Background())
		go s.loadLens(ctx, l.done)
	}
	return 0
}

// loadLens reads every row's length in one snapshot and publishes them.
// While writes keep changing the generation, loads are spaced so they take
// at most a tenth of the time.
func (s *Store) loadLens(ctx context.Context, done chan struct{}) {
	defer close(done)
	start := time.Now()
	var ids []int64
	var lens []int32
	var gen Generation
	err := s.inSnapshot(ctx, func(tx *sql.Tx, g Generation) error {
		gen = g
		rows, err := tx.QueryContext(ctx, "SELECT id, sz FROM chunks_fts_docsize ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		var sz []byte
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &sz); err != nil {
				return err
			}
			n, ok := docsizeTotal(sz)
			if !ok {
				continue // left to %_docsize
			}
			ids = append(ids, id)
			lens = append(lens, n)
		}
		return rows.Err()
	})
	var h int64
	if err == nil {
		var idp *C.int64_t
		var lp *C.int
		if len(ids) > 0 {
			idp, lp = (*C.int64_t)(unsafe.Pointer(&ids[0])), (*C.int)(unsafe.Pointer(&lens[0]))
		}
		h = int64(C.d2mLensNew(idp, lp, C.int(len(ids))))
	}
	l := &s.lens
	l.mu.Lock()
	defer l.mu.Unlock()
	l.loading = false
	l.notLoad = time.Now().Add(max(10*time.Since(start), 100*time.Millisecond))
	if h == 0 {
		return
	}
	if l.handle != 0 {
		C.d2mLensDrop(C.int64_t(l.handle))
	}
	l.handle, l.gen = h, gen
}

// dropLens stops a load in flight and frees the loaded lengths.
func (s *Store) dropLens() {
	l := &s.lens
	l.mu.Lock()
	done, cancel := l.done, l.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if done != nil {
		<-done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.handle != 0 {
		C.d2mLensDrop(C.int64_t(l.handle))
		l.handle = 0
	}
}

// docsizeTotal sums the per-column token counts of a %_docsize record
// (SQLite varints), as FTS5's xColumnSize(-1) does.
func docsizeTotal(sz []byte) (int32, bool) {
	var total int64
	for len(sz) > 0 {
		v, n := varint(sz)
		if n == 0 {
			return 0, false
		}
		total += int64(v)
		sz = sz[n:]
	}
	if total > 1<<31-1 {
		return 0, false
	}
	return int32(total), true
}

// varint decodes a SQLite varint (big-endian 7-bit groups, a ninth byte
// of 8 bits); n is 0 when b is truncated.
func varint(b []byte) (v uint64, n int) {
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

// sink receives the phrase counts one d2m_bm25 query takes (0: none).
type sink int64

func newSink(n int) sink { return sink(C.d2mSinkNew(C.int(n))) }

// take returns the n counts (-1: not taken) and frees the sink.
func (k sink) take(n int) []int64 {
	out := make([]int64, n)
	if n > 0 {
		C.d2mSinkTake(C.int64_t(k), (*C.int64_t)(unsafe.Pointer(&out[0])), C.int(n))
	}
	return out
}
