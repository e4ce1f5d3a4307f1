package scan

import (
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
)

// A listing is one directory's entries, read by a prefetcher ahead of the
// walk or by the walk itself, whichever comes first.
type listing struct {
	abs     string
	taken   atomic.Bool
	done    chan struct{}
	entries []fs.DirEntry
	err     error
}

func newListing(abs string) *listing { return &listing{abs: abs, done: make(chan struct{})} }

// read lists the directory unless another goroutine has taken it, and
// reports whether it did.
func (l *listing) read(onDir func(string)) bool {
	if !l.taken.CompareAndSwap(false, true) {
		return false
	}
	onDir(l.abs)
	l.entries, l.err = os.ReadDir(l.abs)
	close(l.done)
	return true
}

// get returns the entries, listing the directory now if no prefetcher has
// started on it.
func (l *listing) get(onDir func(string)) ([]fs.DirEntry, error) {
	l.read(onDir)
	<-l.done
	return l.entries, l.err
}

// prefetcher lists directories ahead of the walk with a few goroutines:
// the walk is depth-first and single-threaded, and listing a directory
// (getdents) is most of its time besides the files' lstats. Pending
// listings form a stack, so the subdirectories of the directory just
// entered, which the walk needs next, are listed first.
type prefetcher struct {
	onDir  func(string)
	mu     sync.Mutex
	cond   *sync.Cond
	stack  []*listing
	closed bool
	wg     sync.WaitGroup
}

func newPrefetcher(n int, onDir func(string)) *prefetcher {
	p := &prefetcher{onDir: onDir}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(n)
	for range n {
		go p.run()
	}
	return p
}

// push queues one directory's listings (nil entries are skipped), the
// first to be read first.
func (p *prefetcher) push(ls []*listing) {
	if len(ls) == 0 {
		return
	}
	p.mu.Lock()
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i] != nil {
			p.stack = append(p.stack, ls[i])
		}
	}
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *prefetcher) run() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		for len(p.stack) == 0 && !p.closed {
			p.cond.Wait()
		}
		if p.closed {
			p.mu.Unlock()
			return
		}
		l := p.stack[len(p.stack)-1]
		p.stack[len(p.stack)-1] = nil
		p.stack = p.stack[:len(p.stack)-1]
		p.mu.Unlock()
		l.read(p.onDir)
	}
}

// close stops the goroutines (listings not started are dropped) and waits
// for them.
func (p *prefetcher) close() {
	p.mu.Lock()
	p.closed = true
	p.stack = nil
	p.mu.Unlock()
	p.cond.Broadcast()
	p.wg.Wait()
}
