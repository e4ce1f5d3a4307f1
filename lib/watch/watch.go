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

// Run watches root until ctx ends, sending on changed (non-blocking; give it
// a buffer of 1) once per burst of file system events.
func Run(ctx context.Context, root string, opt Options, changed chan<- struct{}) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if opt.Debounce <= 0 {
		opt.Debounce = 500 * time.Millisecond
	}
	warned := false
	add := func(dir string) {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if rel != "." && opt.Skip != nil && opt.Skip(rel) {
				return filepath.SkipDir
			}
			if err := w.Add(p); err != nil && !warned && opt.Warn != nil {
				warned = true
				opt.Warn("cannot watch " + p + " for changes (" + err.Error() + "); later edits there need `dir2mcp reindex` or a restart")
			}
			return nil
		})
	}
	add(root)
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if opt.Warn != nil && !errors.Is(err, fsnotify.ErrEventOverflow) {
				opt.Warn("file watch error: " + err.Error())
			}
			// Overflow: events were lost, so a rescan is due anyway.
			fire = resetTimer(&timer, opt.Debounce)
		case ev, ok := <-w.Events:
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
					add(ev.Name)
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
