package postings

import (
	"path/filepath"
	"sync"
)

// The indexing jobs this process runs, by state dir. The maintainer of a
// dir does not settle its index (Writer.Settle) while one runs: a bulk
// index pays for no merge while it embeds, and its segments are merged
// once it is done.
var jobs = struct {
	mu sync.Mutex
	n  map[string]int
}{n: map[string]int{}}

// Working marks an indexing job of the state dir dir as running in this
// process until done is called.
func Working(dir string) (done func()) {
	dir = filepath.Clean(dir)
	jobs.mu.Lock()
	jobs.n[dir]++
	jobs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			jobs.mu.Lock()
			if jobs.n[dir]--; jobs.n[dir] <= 0 {
				delete(jobs.n, dir)
			}
			jobs.mu.Unlock()
		})
	}
}

// working reports whether an indexing job of dir runs in this process.
func working(dir string) bool {
	jobs.mu.Lock()
	defer jobs.mu.Unlock()
	return jobs.n[filepath.Clean(dir)] > 0
}
