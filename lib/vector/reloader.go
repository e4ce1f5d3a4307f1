package vector

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// ReloaderOptions tunes a Reloader. The zero value is usable.
type ReloaderOptions struct {
	// CheckInterval is the minimum time between two checks of the file
	// triggered by Current. Default 500ms.
	CheckInterval time.Duration
	// PollInterval, when positive, also checks the file on a background
	// ticker, so a new file is loaded even while no one searches.
	PollInterval time.Duration
	// MaxRetryBackoff caps the delay before an unchanged file that failed
	// to load is tried again; the delay doubles from CheckInterval.
	// Default 30s. A changed file is always tried at the next check.
	MaxRetryBackoff time.Duration
	// OnLoad, when set, is called on the reloader's goroutine after every
	// load attempt and whenever the file disappears.
	OnLoad func(Status)
	// Deferred leaves the file unloaded until Start, Refresh or the first
	// Current (whose caller searches an empty snapshot meanwhile), and the
	// poll ticker idle until then: a server restarting over an unchanged
	// index loads its vectors after its no-op index run, not during it.
	Deferred bool
}

// Status describes a Reloader's snapshot and its last load attempt.
type Status struct {
	Path string
	// Loaded reports whether a snapshot is available.
	Loaded bool
	// LoadedAt is when the current snapshot finished loading.
	LoadedAt time.Time
	// LoadDuration is how long loading the current snapshot took.
	LoadDuration time.Duration
	// Model, Dim and Len describe the current snapshot.
	Model string
	Dim   int
	Len   int
	// CheckedAt is when the file was last examined.
	CheckedAt time.Time
	// Err is the last load failure (e.g. STORE_CORRUPT), kept until a
	// load succeeds or the file disappears; the previous snapshot stays
	// current meanwhile. A missing file is not an error.
	Err error
}

// Reloader keeps the latest complete version of an index for searching.
// It never blocks its readers: checks and loads run on a background
// goroutine and the new snapshot replaces the old atomically. It watches
// the manifest (FileName(kind)); when a Writer replaces it, segments the
// current snapshot already maps are reused and only new ones are opened,
// so a flush costs a reload proportional to what it added. A format-1
// file is loaded whole into memory. A manifest or segment that fails
// verification is skipped and the old snapshot kept.
type Reloader struct {
	path string
	opts ReloaderOptions

	cur   atomic.Pointer[Snapshot]
	epoch time.Time
	// nextCheck is the earliest time, in ns since epoch, that Current
	// triggers a check.
	nextCheck atomic.Int64
	kick      chan struct{}
	done      chan struct{}
	stopped   chan struct{}
	ready     chan struct{}
	closeOnce sync.Once

	stMu   sync.Mutex // guards status; held only to copy it
	status Status

	// checkMu serializes checks and guards the fields below.
	checkMu  sync.Mutex
	loadedID mmapfile.FileID
	failedID mmapfile.FileID
	failed   bool
	retryAt  time.Time
	backoff  time.Duration
}

// NewReloader returns a Reloader for the index file at path and starts
// loading it in the background; it does not wait for the load. Close
// stops it.
func NewReloader(path string, opts ReloaderOptions) *Reloader {
	if opts.CheckInterval <= 0 {
		opts.CheckInterval = 500 * time.Millisecond
	}
	if opts.MaxRetryBackoff <= 0 {
		opts.MaxRetryBackoff = 30 * time.Second
	}
	r := &Reloader{
		path:    path,
		opts:    opts,
		epoch:   time.Now(),
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
		ready:   make(chan struct{}),
	}
	r.status.Path = path
	if !opts.Deferred {
		r.kick <- struct{}{}
	}
	go r.run()
	return r
}

// Start asks for the first load of a Deferred reloader (without waiting
// for it); later calls, and calls on others, ask for a check.
func (r *Reloader) Start() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Current returns the latest fully loaded snapshot, or nil when none has
// loaded yet or the file does not exist (a nil *Snapshot searches as empty).
// It never blocks; at most once per CheckInterval it asks the background
// goroutine to look for a newer file.
func (r *Reloader) Current() *Snapshot {
	now := int64(time.Since(r.epoch))
	if next := r.nextCheck.Load(); now >= next && r.nextCheck.CompareAndSwap(next, now+int64(r.opts.CheckInterval)) {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	return r.cur.Load()
}

// Ready is closed once the first check has finished, whether it loaded a
// snapshot, found no file, or failed (or when the Reloader is closed).
func (r *Reloader) Ready() <-chan struct{} { return r.ready }

// Status returns the current snapshot's description and the last error.
func (r *Reloader) Status() Status {
	r.stMu.Lock()
	defer r.stMu.Unlock()
	return r.status
}

// Refresh checks the file now and loads it if it changed, waiting for the
// load. It returns the load error, if any; the file being absent is not
// an error. Writers in the same process call it after WriteFile to make
// the new index visible at once.
func (r *Reloader) Refresh() error {
	return r.check(true).Err
}

// Close stops the background goroutine. The last snapshot stays available
// through Current.
func (r *Reloader) Close() error {
	r.closeOnce.Do(func() { close(r.done) })
	<-r.stopped
	return nil
}

func (r *Reloader) run() {
	first := true
	defer func() {
		if first {
			close(r.ready) // closed before the first check: never block Ready
		}
		close(r.stopped)
	}()
	var tick <-chan time.Time
	if r.opts.PollInterval > 0 {
		t := time.NewTicker(r.opts.PollInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-r.done:
			return
		case <-r.kick:
		case <-tick:
			if first && r.opts.Deferred {
				continue // not started yet
			}
		}
		r.check(false)
		if first {
			close(r.ready)
			first = false
		}
	}
}

// check examines the file, loads it if it changed, calls OnLoad if
// anything happened and returns the resulting status. force retries an
// unchanged file that failed before, without waiting for the backoff.
func (r *Reloader) check(force bool) Status {
	r.checkMu.Lock()
	s := r.Status()
	changed := r.checkLocked(force, &s)
	r.stMu.Lock()
	r.status = s
	r.stMu.Unlock()
	r.checkMu.Unlock()
	if changed && r.opts.OnLoad != nil {
		r.opts.OnLoad(s)
	}
	return s
}

// checkLocked does check's work under r.checkMu, updating s, and reports
// whether the snapshot or error changed.
func (r *Reloader) checkLocked(force bool, s *Status) bool {
	now := time.Now()
	s.CheckedAt = now
	st, err := os.Stat(r.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			r.failed = false
			if r.cur.Load() != nil || s.Err != nil {
				r.publish(s, nil, mmapfile.FileID{}, now, 0)
				s.Err = nil
				return true
			}
			return false
		}
		s.Err = openError(r.path, err)
		return true
	}
	id := mmapfile.IDOf(st)
	if r.cur.Load() != nil && id == r.loadedID {
		return false
	}
	if !force && r.failed && id == r.failedID && now.Before(r.retryAt) {
		return false
	}
	ix, id, err := r.load()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errSegmentGone) {
			// Removed between stat and open; the next check settles it.
			return false
		}
		if r.failed && id == r.failedID {
			r.backoff = min(2*r.backoff, r.opts.MaxRetryBackoff)
		} else {
			r.backoff = r.opts.CheckInterval
		}
		r.failed, r.failedID, r.retryAt = true, id, now.Add(r.backoff)
		s.Err = err
		return true
	}
	r.failed = false
	r.publish(s, ix, id, time.Now(), time.Since(now))
	s.Err = nil
	return true
}

// load opens the newest snapshot, reusing the current one's segments.
func (r *Reloader) load() (*Snapshot, mmapfile.FileID, error) {
	return openSnapshot(r.path, r.cur.Load())
}

// publish swaps in ix (nil for none) and describes it in s.
func (r *Reloader) publish(s *Status, ix *Snapshot, id mmapfile.FileID, at time.Time, took time.Duration) {
	if old := r.cur.Swap(ix); old.replacedBy(ix) {
		// Segments merged away stay mapped (and their deleted files take
		// disk space) until the old snapshot is collected: collect soon.
		go runtime.GC()
	}
	r.loadedID = id
	s.Loaded = ix != nil
	s.LoadedAt, s.LoadDuration = at, took
	s.Model, s.Dim, s.Len = ix.Model(), ix.Dim(), ix.Len()
	if ix == nil {
		s.LoadedAt, s.LoadDuration = time.Time{}, 0
	}
}
