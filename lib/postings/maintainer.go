package postings

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Maintainer keeps a state dir's keyword index in step with its store: it
// applies, in order, the changes the store logs (see store.PostingsChange)
// and flushes them as segments. One process at a time maintains an index
// (it holds the postings lock); the changes other processes commit wait in
// the log until the holder applies them, or until one of them takes the
// lock. Changes this process commits reach the index without being read
// back (the store's postings hook). An index that is missing, unfinished
// or built from another store is rebuilt from the store's chunks.
type Maintainer struct {
	Dir   state.Dir
	Store *store.Store
	// Log, when set, is told about rebuilds and failures.
	Log func(msg string)

	mu      sync.Mutex
	queue   []store.PostingsChange // committed here, not yet applied
	queued  int64                  // bytes of text in queue
	dropped bool                   // queue overflowed: read back instead
	kick    chan struct{}
	syncReq chan chan error
	done    chan struct{}
	stopped chan struct{}
	w       *Writer // set while holding the lock
	lock    *state.Lock
	pruned  int64
}

// Tuning of the maintainer's batching.
var (
	// flushEvery is the longest a committed change waits before the
	// index is flushed while changes keep coming; also how often a
	// process without the lock tries to take it.
	flushEvery = time.Second
	// flushBytes flushes early when the unflushed rows hold this much heap.
	flushBytes int64 = 24 << 20
	// maxQueued bounds the text of in-process changes waiting; past it
	// they are dropped and read back from the store.
	maxQueued int64 = 32 << 20
	// readBatch is how many changes or rows are read back at once.
	readBatch = 2000
	// settleAfter is how long the index of a server stays unchanged, with
	// no indexing job of the process running, before the maintainer merges
	// its segments (Writer.Settle; see maySettle).
	settleAfter = 5 * time.Second
)

// Ensure attaches a running Maintainer of dir to st unless st has one
// (a process that writes chunks needs one); st.Close stops it.
func Ensure(st *store.Store, dir state.Dir, log func(string)) {
	st.AttachPostingsOnce(func() store.PostingsMaintainer {
		m := &Maintainer{Dir: dir, Store: st, Log: log}
		m.Start(context.Background())
		return m
	})
}

// Start registers the store hook and starts maintaining in the
// background until ctx ends or Close.
func (m *Maintainer) Start(ctx context.Context) {
	m.kick = make(chan struct{}, 1)
	m.syncReq = make(chan chan error)
	m.done = make(chan struct{})
	m.stopped = make(chan struct{})
	m.Store.OnPostings(m.committed)
	go m.run(ctx)
}

// Close stops maintaining (after flushing what was applied) and releases
// the lock.
func (m *Maintainer) Close() {
	if m.done == nil {
		return
	}
	m.Store.OnPostings(nil)
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	<-m.stopped
}

// committed is the store hook: queue the changes and wake the loop.
func (m *Maintainer) committed(cs []store.PostingsChange) {
	m.mu.Lock()
	if !m.dropped {
		for _, c := range cs {
			m.queued += int64(len(c.Path) + len(c.Title) + len(c.Body))
		}
		m.queue = append(m.queue, cs...)
		if m.queued > maxQueued {
			m.queue, m.queued, m.dropped = nil, 0, true
		}
	}
	m.mu.Unlock()
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Sync returns once every change committed before the call is in the
// flushed index: applied here when this process maintains the index,
// else awaited from the process that does.
func (m *Maintainer) Sync(ctx context.Context) error {
	last, err := m.Store.PostingsLast(ctx)
	if err != nil {
		return err
	}
	reply := make(chan error, 1)
	for {
		select {
		case m.syncReq <- reply:
			select {
			case err := <-reply:
				if !errors.Is(err, errNotHolding) {
					return err
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		case <-m.stopped:
			return errors.New("keyword index maintainer stopped")
		case <-ctx.Done():
			return ctx.Err()
		}
		// Another process maintains the index: wait for it.
		if man, err := readManifest(m.Dir.Path); err == nil && man.StoreID != "" && man.Applied >= last {
			return nil
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

var errNotHolding = errors.New("keyword index maintained by another process")

func (m *Maintainer) run(ctx context.Context) {
	defer close(m.stopped)
	defer m.release()
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	var firstPending time.Time
	idle := settler{since: time.Now()}
	for {
		var reply chan error
		select {
		case <-ctx.Done():
			m.flushOnExit()
			return
		case <-m.done:
			m.flushOnExit()
			return
		case <-m.kick:
		case <-tick.C:
		case reply = <-m.syncReq:
		}
		if m.w == nil && !m.acquire(ctx) {
			if reply != nil {
				reply <- errNotHolding
			}
			continue
		}
		before := m.position()
		err := m.catchUp(ctx)
		if m.position() != before || !m.w.b.empty() {
			idle = settler{since: time.Now()}
		}
		if err == nil && m.w.b.empty() {
			firstPending = time.Time{}
		} else if err == nil && firstPending.IsZero() {
			firstPending = time.Now()
		}
		// catchUp has flushed whatever reached flushBytes.
		if err == nil && (reply != nil || !firstPending.IsZero() && time.Since(firstPending) >= flushEvery) {
			err = m.flush(ctx)
			firstPending = time.Time{}
		}
		if err == nil && reply == nil {
			err = idle.settle(m)
		}
		if err != nil && m.Log != nil {
			m.Log("keyword index: " + err.Error())
		}
		if reply != nil {
			reply <- err
		}
	}
}

// settler settles an index once (Writer.Settle) after it stayed
// unchanged for settleAfter in a process that may settle it (maySettle).
type settler struct {
	since time.Time // the index's last change, or when settling became allowed
	done  bool
}

// settle settles m's index if it has been idle long enough.
func (s *settler) settle(m *Maintainer) error {
	if !maySettle(m.Dir.Path) {
		s.since = time.Now()
		return nil
	}
	if s.done || !m.w.b.empty() || time.Since(s.since) < settleAfter {
		return nil
	}
	s.done = true
	merged, err := m.w.Settle()
	if merged && err == nil {
		// The merge's buffers (~120 MB on the Linux source) go back to
		// the system rather than idling in the heap.
		debug.FreeOSMemory()
	}
	return err
}

// acquire takes the postings lock and opens (or rebuilds) the index.
func (m *Maintainer) acquire(ctx context.Context) bool {
	l, err := m.Dir.TryLock(state.PostingsLock)
	if err != nil {
		return false
	}
	w, err := m.open(ctx)
	if err != nil {
		l.Unlock()
		if m.Log != nil {
			m.Log("keyword index: " + err.Error())
		}
		return false
	}
	m.lock, m.w = l, w
	return true
}

// open opens the index for writing, rebuilding it when it is not a
// finished index of this store.
func (m *Maintainer) open(ctx context.Context) (*Writer, error) {
	id, err := m.Store.ID(ctx)
	if err != nil {
		return nil, err
	}
	w, err := OpenWriter(m.Dir.Path)
	if err == nil && w.StoreID() == id && id != "" {
		last, err := m.Store.PostingsLast(ctx)
		if err != nil {
			return nil, err
		}
		if w.Applied() <= last {
			return w, nil
		}
		// The index is ahead of the store's log: not this store's state.
	}
	if err != nil {
		var cerr error
		if w, cerr = m.openEmpty(err); cerr != nil {
			return nil, cerr
		}
	}
	return w, m.rebuild(ctx, w, id)
}

// openEmpty discards an index that cannot be opened.
func (m *Maintainer) openEmpty(cause error) (*Writer, error) {
	if m.Log != nil {
		m.Log(fmt.Sprintf("keyword index unusable (%v): rebuilding it from the store", cause))
	}
	w := &Writer{dir: m.Dir.Path, b: newBuilder(), man: manifest{NextSeq: freshSeq()}}
	w.Reset("")
	if err := w.Flush(0); err != nil {
		return nil, err
	}
	w.removeUnlisted()
	return w, nil
}

// rebuild fills w with every live chunk of the store. The index records
// the store's id only once complete, so an interrupted rebuild starts
// over.
func (m *Maintainer) rebuild(ctx context.Context, w *Writer, id string) error {
	start := time.Now()
	// Changes logged from here on are applied after the rebuild.
	last, err := m.Store.PostingsLast(ctx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.queue, m.queued, m.dropped = nil, 0, false
	m.mu.Unlock()
	w.Reset("")
	var after int64
	rows := 0
	for {
		cs, err := m.Store.PostingsRows(ctx, after, readBatch)
		if err != nil {
			return err
		}
		if len(cs) == 0 {
			break
		}
		if err := w.addFunc(len(cs), docOf(cs)); err != nil {
			return err
		}
		rows += len(cs)
		after = cs[len(cs)-1].ChunkID
		if w.Buffered() >= flushBytes {
			if err := w.Flush(0); err != nil {
				return err
			}
		}
	}
	w.man.StoreID = id
	w.dirty = true
	if err := w.Flush(last); err != nil {
		return err
	}
	// Building the first index of a small store is routine; say so only
	// when it took a while (an upgraded store's first start).
	if took := time.Since(start); m.Log != nil && took >= 2*time.Second {
		m.Log(fmt.Sprintf("keyword index built from the store: %d chunks in %s", rows, took.Round(100*time.Millisecond)))
	}
	return nil
}

// docOf makes the row of live change i of cs (its columns prepared on
// the tokenizing goroutines).
func docOf(cs []store.PostingsChange) func(i int, d *Doc) {
	return func(i int, d *Doc) {
		c := &cs[i]
		p, t, b := c.Columns()
		*d = Doc{ID: c.ChunkID, Kind: c.Kind, Cols: [numCols]string{p, t, b}}
	}
}

// catchUp adds every logged change after the index's position to the
// writer, flushing whenever the writer holds flushBytes or more, so that
// what a maintainer catches up on never piles up in memory: it returns
// with less than flushBytes unflushed.
func (m *Maintainer) catchUp(ctx context.Context) error {
	for {
		more, err := m.apply(ctx)
		if err != nil || !more {
			return err
		}
		if err := m.flush(ctx); err != nil {
			return err
		}
	}
}

// apply adds the logged changes after the index's position to the writer
// (unflushed): those queued in memory when they continue the position
// without a gap, else read back from the store. It stops once the writer
// holds flushBytes or more, reporting more: changes may remain.
func (m *Maintainer) apply(ctx context.Context) (more bool, err error) {
	for {
		pos := m.position()
		m.mu.Lock()
		var use []store.PostingsChange
		if m.dropped {
			m.queue, m.queued, m.dropped = nil, 0, false
		}
		// Drop what is already applied, then take the queue if it starts
		// right after pos.
		i := 0
		for i < len(m.queue) && m.queue[i].Seq <= pos {
			i++
		}
		m.queue = m.queue[i:]
		if len(m.queue) > 0 && m.queue[0].Seq == pos+1 {
			n := 1
			for n < len(m.queue) && m.queue[n].Seq == m.queue[n-1].Seq+1 {
				n++
			}
			// Taken out of the queue, so its backing array does not keep
			// the applied text alive.
			use = slices.Clone(m.queue[:n])
			clear(m.queue[:n])
			m.queue = m.queue[n:]
			if len(m.queue) == 0 {
				m.queue = nil
			}
			m.queued = 0
			for _, c := range m.queue {
				m.queued += int64(len(c.Path) + len(c.Title) + len(c.Body))
			}
		}
		m.mu.Unlock()
		if len(use) == 0 {
			var last int64
			var err error
			use, last, err = m.Store.PostingsChanges(ctx, pos, readBatch)
			if err != nil {
				return false, err
			}
			if len(use) == 0 {
				if last > pos {
					// Pruned by another maintainer past our position: the
					// index cannot catch up change by change.
					return false, m.rebuild(ctx, m.w, m.w.StoreID())
				}
				return false, nil
			}
		}
		if err := m.applyChanges(use); err != nil {
			return false, err
		}
		if m.w.Buffered() >= flushBytes {
			return true, nil
		}
	}
}

// position is the last change the writer holds (flushed or not).
func (m *Maintainer) position() int64 { return m.w.pending }

// applyChanges adds changes, in order, to the writer.
func (m *Maintainer) applyChanges(cs []store.PostingsChange) error {
	var live []store.PostingsChange
	addLive := func() error {
		if len(live) == 0 {
			return nil
		}
		err := m.w.addFunc(len(live), docOf(live))
		live = live[:0]
		return err
	}
	for _, c := range cs {
		switch {
		case c.ChunkID == 0:
			if err := addLive(); err != nil {
				return err
			}
			m.w.Reset(m.w.StoreID())
		case c.Live:
			live = append(live, c)
		default:
			if err := addLive(); err != nil {
				return err
			}
			m.w.Delete([]int64{c.ChunkID})
		}
	}
	if err := addLive(); err != nil {
		return err
	}
	if len(cs) > 0 {
		m.w.pending = cs[len(cs)-1].Seq
	}
	return nil
}

// flush writes what the writer holds and prunes the log it covers.
func (m *Maintainer) flush(ctx context.Context) error {
	if err := m.w.Flush(m.w.pending); err != nil {
		return err
	}
	if applied := m.w.Applied(); applied-m.pruned >= 4096 {
		if err := m.Store.PrunePostingsLog(ctx, applied); err == nil {
			m.pruned = applied
		}
	}
	return nil
}

// flushOnExit applies and flushes what is left, then stops.
func (m *Maintainer) flushOnExit() {
	if m.w == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.catchUp(ctx); err == nil {
		err = m.flush(ctx)
		if err != nil && m.Log != nil {
			m.Log("keyword index: " + err.Error())
		}
	}
}

func (m *Maintainer) release() {
	if m.lock != nil {
		m.lock.Unlock()
		m.lock = nil
	}
	m.w = nil
}

// Ready reports whether the index in dir is a finished index of a store
// (it may lag the store's latest changes).
func Ready(stateDir string) bool {
	m, err := readManifest(stateDir)
	return err == nil && m.StoreID != ""
}
