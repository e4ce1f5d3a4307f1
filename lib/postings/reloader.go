package postings

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// Reloader keeps the latest flushed version of a state dir's keyword
// index for searching. It never blocks its readers: checks and loads run
// on a background goroutine and the new snapshot replaces the old
// atomically. It watches the manifest; when a Writer replaces it, the
// segments the current snapshot maps are reused and only new ones opened.
// A manifest or segment that fails to load is skipped and the old
// snapshot kept (Refresh reports it).
type Reloader struct {
	dir      string
	interval time.Duration

	cur       atomic.Pointer[Snapshot]
	epoch     time.Time
	nextCheck atomic.Int64 // ns since epoch
	kick      chan struct{}
	done      chan struct{}
	stopped   chan struct{}
	ready     chan struct{}
	closeOnce sync.Once

	mu      sync.Mutex      // serializes checks; guards the fields below
	loaded  mmapfile.FileID // the manifest loaded; zero for none (no manifest is empty)
	lastErr error
}

// manifestID returns the identity of the manifest in dir.
func manifestID(dir string) (mmapfile.FileID, error) {
	st, err := os.Stat(manifestPath(dir))
	if err != nil {
		return mmapfile.FileID{}, err
	}
	return mmapfile.IDOf(st), nil
}

// NewReloader starts watching the index in stateDir, checking at most once
// per interval when searched (and every interval in the background when
// poll is set); it loads in the background and does not wait.
func NewReloader(stateDir string, interval time.Duration, poll bool) *Reloader {
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	r := &Reloader{dir: filepath.Clean(stateDir), interval: interval, epoch: time.Now(),
		kick: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{}), ready: make(chan struct{})}
	r.kick <- struct{}{}
	local.add(r)
	go r.run(poll)
	return r
}

// local is the process's reloaders by state dir: a Writer's flush loads
// the new version into them before it returns, so a process sees its own
// writes at once (other processes within a check interval).
var local = reloaders{byDir: map[string][]*Reloader{}}

type reloaders struct {
	mu    sync.Mutex
	byDir map[string][]*Reloader
}

func (l *reloaders) add(r *Reloader) {
	l.mu.Lock()
	l.byDir[r.dir] = append(l.byDir[r.dir], r)
	l.mu.Unlock()
}

func (l *reloaders) remove(r *Reloader) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.byDir[r.dir]
	for i, x := range rs {
		if x == r {
			l.byDir[r.dir] = append(rs[:i:i], rs[i+1:]...)
			break
		}
	}
	if len(l.byDir[r.dir]) == 0 {
		delete(l.byDir, r.dir)
	}
}

// flushed loads the index of dir into the process's reloaders of it.
func (l *reloaders) flushed(dir string) {
	l.mu.Lock()
	rs := append([]*Reloader(nil), l.byDir[dir]...)
	l.mu.Unlock()
	for _, r := range rs {
		r.check()
	}
}

// Current returns the latest loaded snapshot (nil before the first load
// or when there is no index: a nil snapshot searches as empty).
func (r *Reloader) Current() *Snapshot {
	now := int64(time.Since(r.epoch))
	if next := r.nextCheck.Load(); now >= next && r.nextCheck.CompareAndSwap(next, now+int64(r.interval)) {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	return r.cur.Load()
}

// Ready is closed once the first check has finished.
func (r *Reloader) Ready() <-chan struct{} { return r.ready }

// Refresh checks the manifest now and loads it if it changed.
func (r *Reloader) Refresh() error { return r.check() }

// Close stops the background goroutine; Current keeps the last snapshot.
func (r *Reloader) Close() {
	r.closeOnce.Do(func() {
		local.remove(r)
		close(r.done)
	})
	<-r.stopped
}

func (r *Reloader) run(poll bool) {
	first := true
	defer func() {
		if first {
			close(r.ready)
		}
		close(r.stopped)
	}()
	var tick <-chan time.Time
	if poll {
		t := time.NewTicker(r.interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.done:
			return
		case <-r.kick:
		case <-tick:
		}
		r.check()
		if first {
			close(r.ready)
			first = false
		}
	}
}

func (r *Reloader) check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, err := manifestID(r.dir)
	if errors.Is(err, fs.ErrNotExist) {
		r.cur.Store(nil)
		r.loaded, r.lastErr = mmapfile.FileID{}, nil
		return nil
	}
	if err != nil {
		r.lastErr = err
		return err
	}
	if id == r.loaded {
		return r.lastErr
	}
	for try := 0; try < 3; try++ {
		var s *Snapshot
		s, err = openSnapshot(r.dir, r.cur.Load())
		if err == nil {
			if old := r.cur.Swap(s); old.dropsSegments(s) {
				// Segments merged away stay mapped (and their deleted files
				// take disk space) until the old snapshot is collected:
				// collect soon.
				go runtime.GC()
			}
			r.loaded, r.lastErr = id, nil
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		if id, err = manifestID(r.dir); err != nil {
			break
		}
	}
	r.lastErr = err
	return err
}
