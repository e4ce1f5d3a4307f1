package postings

import (
	"path/filepath"
	"sync"
)

// When a process's maintainer settles an index (Writer.Settle): only in a
// server (Serving: `up`, `serve`), which stays up after its jobs, and
// never while one of its indexing jobs runs (Working). A bulk index pays
// for no merge while it embeds, nor a one-shot command for one before it
// exits; the server merges the segments once the index is idle.
var (
	jobs    = dirCounts{n: map[string]int{}}
	servers = dirCounts{n: map[string]int{}}
)

// Working marks an indexing job of the state dir dir as running in this
// process until done is called.
func Working(dir string) (done func()) { return jobs.hold(dir) }

// Serving marks this process as a server of the state dir dir until done
// is called: its maintainer settles the index when idle.
func Serving(dir string) (done func()) { return servers.hold(dir) }

// maySettle reports whether this process may settle dir's index now.
func maySettle(dir string) bool { return servers.has(dir) && !jobs.has(dir) }

// dirCounts counts holds by state dir.
type dirCounts struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *dirCounts) hold(dir string) (done func()) {
	dir = filepath.Clean(dir)
	c.mu.Lock()
	c.n[dir]++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			if c.n[dir]--; c.n[dir] <= 0 {
				delete(c.n, dir)
			}
			c.mu.Unlock()
		})
	}
}

func (c *dirCounts) has(dir string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[filepath.Clean(dir)] > 0
}
