// Package watch reports changes under a directory tree (via inotify and its
// equivalents) so a running server can re-index incrementally.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options configure a watch.
type Options struct {
	// Skip reports whether a directory (slash-separated, relative to the
	// root) must not be watched: the state dir, VCS and dependency dirs.
	Skip func(relDir string) bool
	// Debounce is the quiet period after the last event before Changed fires.
	Debounce time.Duration
	// Warn receives non-fatal problems (e.g. the OS watch limit reached).
	Warn func(msg string)
}

// Watcher watches the directories of a tree. Directories are added as a
// walk of the tree lists them (Add; the indexer's scan calls it for each
// directory it enters, before listing it, so no change between the listing
// and the watch is lost) and when they are created.
type Watcher struct {
	root   string
	opt    Options
	w      *fsnotify.Watcher
	warned atomic.Bool
}

// New starts a watcher for root with no directory watched yet.
func New(root string, opt Options) (*Watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if opt.Debounce <= 0 {
		opt.Debounce = 500 * time.Millisecond
	}
	return &Watcher{root: root, opt: opt, w: w}, nil
}

// Add watches dir, an absolute directory under the root, unless Skip
// excludes it. It is safe for concurrent use; adding a directory again
// does nothing.
func (w *Watcher) Add(dir string) {
	rel, err := filepath.Rel(w.root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	rel = filepath.ToSlash(rel)
	if rel != "." && w.opt.Skip != nil && w.opt.Skip(rel) {
		return
	}
	w.AddWalked(dir)
}

// AddWalked watches dir, a directory a walk of the tree entered that skips
// at least what Skip does (the indexer's scan): Skip is not asked again.
func (w *Watcher) AddWalked(dir string) {
	if err := w.w.Add(dir); err != nil && w.opt.Warn != nil && w.warned.CompareAndSwap(false, true) {
		w.opt.Warn("cannot watch " + dir + " for changes (" + err.Error() + "); later edits there need `dir2mcp reindex` or a restart")
	}
}

// addTree watches dir and every directory below it that Skip allows.
func (w *Watcher) addTree(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(w.root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && w.opt.Skip != nil && w.opt.Skip(rel) {
			return filepath.SkipDir
		}
		w.AddWalked(p) // Skip was just asked
		return nil
	})
}

// Run watches root (every directory Skip allows) until ctx ends, sending
// on changed (non-blocking; give it a buffer of 1) once per burst of file
// system events.
func Run(ctx context.Context, root string, opt Options, changed chan<- struct{}) error {
	w, err := New(root, opt)
	if err != nil {
		return err
	}
	w.addTree(root)
	return w.Run(ctx, changed)
}

// Run reports changes until ctx ends, sending on changed (non-blocking;
// give it a buffer of 1) once per burst of file system events, then closes
// the watcher. Directories created under watched ones are watched with
// everything below them.
func (w *Watcher) Run(ctx context.Context, changed chan<- struct{}) error {
	defer w.w.Close()
	root, opt := w.root, w.opt
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.w.Errors:
			if !ok {
				return nil
			}
			if opt.Warn != nil && !errors.Is(err, fsnotify.ErrEventOverflow) {
				opt.Warn("file watch error: " + err.Error())
			}
			// Overflow: events were lost, so a rescan is due anyway.
			fire = resetTimer(&timer, opt.Debounce)
		case ev, ok := <-w.w.Events:
			if !ok {
				return nil
			}
			rel, err := filepath.Rel(root, ev.Name)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			if opt.Skip != nil && skipped(rel, opt.Skip) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					w.addTree(ev.Name)
				}
			}
			fire = resetTimer(&timer, opt.Debounce)
		case <-fire:
			fire = nil
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}
}

// skipped reports whether rel or any of its parent directories is skipped.
func skipped(rel string, skip func(string) bool) bool {
	for d := rel; d != "." && d != ""; d = filepath.ToSlash(filepath.Dir(d)) {
		if skip(d) {
			return true
		}
		if !strings.Contains(d, "/") {
			break
		}
	}
	return false
}

func resetTimer(t **time.Timer, d time.Duration) <-chan time.Time {
	if *t == nil {
		*t = time.NewTimer(d)
	} else {
		if !(*t).Stop() {
			select {
			case <-(*t).C:
			default:
			}
		}
		(*t).Reset(d)
	}
	return (*t).C
}
