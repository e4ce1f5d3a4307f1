package scan

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// walker lists directories in order and hands files to the workers. It
// runs in one goroutine; its maps are read by Walk once it has finished.
type walker struct {
	s    *scanner
	git  *gitignore // nil when .gitignore files are not honoured
	send func(*job) bool
	pre  *prefetcher // lists the directories the walk will enter, ahead

	realStack   []string        // real paths of the directories being walked
	linkVisited map[string]bool // real directories entered through a symlink

	pruned       map[string]string // ignored directory or symlink → reason
	excludedDirs map[string]string // path-excluded directory → pattern
	unreadable   map[string]bool   // directories that could not be listed
	ignoredFiles map[string]string // ignored known file → reason
	ignored      int               // entries passed over without a record
	entries      int               // directory entries met, less those the built-in rules pass over
	rules        ruleCounts        // entries ignored or excluded per user or project rule
}

func newWalker(s *scanner) *walker {
	return &walker{
		s:            s,
		linkVisited:  map[string]bool{},
		pruned:       map[string]string{},
		excludedDirs: map[string]string{},
		unreadable:   map[string]bool{},
		ignoredFiles: map[string]string{},
	}
}

func (w *walker) walk(ctx context.Context) error {
	if w.s.opt.Gitignore {
		w.git = newGitignore(w.s.realRoot, func(msg string) { w.warn("", msg) })
	}
	w.onDir(w.s.root)
	entries, err := os.ReadDir(w.s.root)
	if err != nil {
		return errcode.Wrap(errcode.RootInaccessible, err, "cannot list root %s: %v", w.s.root, unwrapPathError(err))
	}
	w.pre = newPrefetcher(max(2, w.s.workers), w.onDir)
	defer w.pre.close()
	w.realStack = append(w.realStack, w.s.realRoot)
	return w.dir(ctx, "", w.s.root, w.s.realRoot, entries)
}

// onDir calls Options.OnDir.
func (w *walker) onDir(abs string) {
	if w.s.opt.OnDir != nil {
		w.s.opt.OnDir(abs)
	}
}

// enters reports whether subdir would enter the directory rel (not a
// symlink), with no side effects: it is not the state dir, not ignored,
// not path-excluded. The walk lists such directories ahead.
func (w *walker) enters(rel, real string) bool {
	if rel == w.s.stateRel || real == w.s.stateReal {
		return false
	}
	if reason, _ := w.baseRule(rel, true); reason != "" {
		return false
	}
	if w.git != nil {
		if _, _, ok := w.git.match(rel, true); ok {
			return false
		}
	}
	// The walk is inside rel's parent: it was checked.
	_, excluded := w.s.engine.DirExcludedIn(rel)
	return !excluded
}

// warn queues a warning in walk order; it reports false when the walk must
// stop.
func (w *walker) warn(rel, msg string) bool {
	return w.send(&job{rel: rel, warn: msg})
}

// joinName is filepath.Join(dir, name) for a clean dir and a name from
// its listing (no separator, not "." or ".."), without cleaning again.
func joinName(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) { // the file system root
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// dir walks one directory whose entries are already listed.
func (w *walker) dir(ctx context.Context, rel, abs, real string, entries []fs.DirEntry) error {
	if w.git != nil {
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				src := join(rel, ".gitignore")
				f, err := readIgnoreFile(filepath.Join(abs, ".gitignore"))
				if err != nil && !w.warn(src, "cannot read ignore file: "+unwrapPathError(err).Error()) {
					return errStopped
				}
				f.source, f.base = src, rel
				w.git.push(f)
				defer w.git.pop()
				break
			}
		}
	}
	// The subdirectories this walk will enter are listed ahead, in
	// parallel, nearest first (symlinked ones, whose fate depends on the
	// walk so far, are listed when entered).
	var ahead []*listing
	for i, e := range entries {
		if !e.Type().IsDir() || !utf8.ValidString(e.Name()) {
			continue
		}
		childRel := join(rel, e.Name())
		if !w.enters(childRel, joinName(real, e.Name())) {
			continue
		}
		if ahead == nil {
			ahead = make([]*listing, len(entries))
		}
		ahead[i] = newListing(joinName(abs, e.Name()))
	}
	w.pre.push(ahead)
	for i, e := range entries {
		if ctx.Err() != nil {
			return errStopped
		}
		w.entries++
		name := e.Name()
		childRel := join(rel, name)
		if !utf8.ValidString(name) {
			if !w.warn(strings.ToValidUTF8(childRel, "\uFFFD"), "name is not valid UTF-8; rename it to index it") {
				return errStopped
			}
			continue
		}
		childAbs := joinName(abs, name)
		var childReal string // of a directory
		t := e.Type()
		isDir := t.IsDir()
		if isDir {
			childReal = joinName(real, name)
		}
		var target fs.FileInfo // set when following a symlink
		if t&fs.ModeSymlink != 0 {
			if !w.s.opt.FollowSymlinks {
				w.pruned[childRel] = "symlink not followed (ingest.follow_symlinks is off)"
				w.ignored++
				continue
			}
			real, fi, msg := w.resolveLink(childAbs)
			if msg != "" {
				w.ignored++
				// An ignored link is passed over quietly, whatever it
				// points to.
				reason := w.ignoreRule(childRel, false)
				if reason == "" {
					reason = w.ignoreRule(childRel, true)
				}
				if reason != "" {
					w.pruned[childRel] = reason
					continue
				}
				w.pruned[childRel] = msg
				if !w.warn(childRel, msg) {
					return errStopped
				}
				continue
			}
			childReal, target, isDir = real, fi, fi.IsDir()
		} else if !isDir && !t.IsRegular() {
			w.noteIgnored(childRel, "not a regular file")
			continue
		}
		if isDir {
			var l *listing
			if ahead != nil && target == nil {
				l = ahead[i]
			}
			if err := w.subdir(ctx, childRel, childAbs, childReal, target != nil, l); err != nil {
				return err
			}
			continue
		}
		if reason := w.ignoreRule(childRel, false); reason != "" {
			w.noteIgnored(childRel, reason)
			continue
		}
		if !w.send(&job{rel: childRel, abs: childAbs, info: target}) {
			return errStopped
		}
	}
	return nil
}

// subdir enters a directory unless it is the state dir, ignored, excluded,
// or a symlink loop; l, if set, is its listing read ahead.
func (w *walker) subdir(ctx context.Context, rel, abs, real string, viaLink bool, l *listing) error {
	if l != nil {
		// Listed ahead: enters found it is not the state dir, not
		// ignored, not excluded (checks with nothing to count).
		return w.enter(ctx, rel, abs, real, l)
	}
	if rel == w.s.stateRel || real == w.s.stateReal {
		w.pruned[rel] = "inside the state directory"
		w.ignored++
		w.entries--
		return nil
	}
	if reason := w.ignoreRule(rel, true); reason != "" {
		w.pruned[rel] = reason
		w.ignored++
		return nil
	}
	if pat, ok := w.s.engine.PathExcluded(rel + "/"); ok {
		w.rules.add("security.path_excludes: "+pat, ruleExclude)
		w.excludedDirs[rel] = pat
		w.ignored++
		return nil
	}
	if viaLink {
		msg := ""
		for _, a := range w.realStack {
			if a == real {
				msg = "symlink loop: points to a directory it is inside; not followed"
			}
		}
		if msg == "" && w.linkVisited[real] {
			msg = "directory already entered through another symlink; not followed again"
		}
		if msg != "" {
			w.noteIgnored(rel, msg)
			if !w.warn(rel, msg) {
				return errStopped
			}
			return nil
		}
		w.linkVisited[real] = true
	}
	return w.enter(ctx, rel, abs, real, nil)
}

// enter lists a directory (or takes its listing l) and walks it.
func (w *walker) enter(ctx context.Context, rel, abs, real string, l *listing) error {
	var entries []fs.DirEntry
	var err error
	if l != nil {
		entries, err = l.get(w.onDir)
	} else {
		w.onDir(abs)
		entries, err = os.ReadDir(abs)
	}
	if err != nil {
		w.unreadable[rel] = true
		msg := "cannot list directory: " + unwrapPathError(err).Error()
		if len(entries) > 0 {
			msg += " (listing incomplete)"
		}
		if !w.warn(rel, msg) {
			return errStopped
		}
	}
	w.realStack = append(w.realStack, real)
	defer func() { w.realStack = w.realStack[:len(w.realStack)-1] }()
	return w.dir(ctx, rel, abs, real, entries)
}

// resolveLink resolves a symlink for following. It returns the target's
// real path and info, or a message saying why the link is not followed.
func (w *walker) resolveLink(abs string) (string, fs.FileInfo, string) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", nil, "broken symlink: " + unwrapPathError(err).Error()
	}
	tRel, ok := relInside(w.s.realRoot, real)
	if !ok {
		return "", nil, "symlink points outside the root; not followed"
	}
	if tRel == "" {
		return "", nil, "symlink loop: points to the root; not followed"
	}
	if _, in := relInside(w.s.stateReal, real); in {
		return "", nil, "symlink points into the state directory; not followed"
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", nil, "symlink target not accessible: " + unwrapPathError(err).Error()
	}
	if !fi.IsDir() && !fi.Mode().IsRegular() {
		return "", nil, "symlink target is not a regular file or directory"
	}
	// The target must be indexable where it is: no ignored or excluded
	// ancestor, and not ignored or excluded itself.
	parts := strings.Split(tRel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		isDir := i < len(parts)-1 || fi.IsDir()
		if reason, _ := w.baseRule(p, isDir); reason != "" {
			return "", nil, "symlink target " + p + " is " + reason + "; not followed"
		}
	}
	q := tRel
	if fi.IsDir() {
		q += "/"
	}
	if pat, ok := w.s.engine.PathExcluded(q); ok {
		return "", nil, fmt.Sprintf("symlink target matches security.path_excludes pattern %q; not followed", pat)
	}
	return real, fi, ""
}

// ignoreRule returns why rel is ignored, or "", and counts the deciding
// rule when it is not a built-in one.
func (w *walker) ignoreRule(rel string, isDir bool) string {
	if reason, i := w.baseRule(rel, isDir); reason != "" {
		if i < len(DefaultIgnore) {
			w.entries--
		} else {
			w.rules.add(fmt.Sprintf("ingest.ignore[%d]: %s", i-len(DefaultIgnore), w.s.base[i]), ruleIngestIgnore)
		}
		return reason
	}
	if w.git != nil {
		if pat, f, ok := w.git.match(rel, isDir); ok {
			w.rules.addGit(pat, f)
			return fmt.Sprintf("ignored by %s pattern %q", f.source, pat)
		}
	}
	return ""
}

// baseRule checks DefaultIgnore and Options.Ignore; i is the index of the
// deciding pattern in the scanner's base rules.
func (w *walker) baseRule(rel string, isDir bool) (reason string, i int) {
	var pat *exclude.Pattern
	if isDir {
		pat = w.s.base.Decide(rel, true)
	} else {
		pat = w.s.baseFiles.Decide(rel)
	}
	if pat == nil || pat.Negate {
		return "", -1
	}
	for i, p := range w.s.base {
		if p == pat {
			if i < len(DefaultIgnore) {
				return fmt.Sprintf("ignored by default pattern %q", pat), i
			}
			return fmt.Sprintf("ignored by ingest.ignore pattern %q", pat), i
		}
	}
	return "", -1
}

// noteIgnored counts a path passed over and, for a known one, keeps the
// reason for its deleted record (for any one while the known states are
// still loading: the walk does not wait for them).
func (w *walker) noteIgnored(rel, reason string) {
	if !w.s.knownLoaded() {
		w.ignoredFiles[rel] = reason
	} else if _, ok := w.s.known[rel]; ok {
		w.ignoredFiles[rel] = reason
	}
	w.ignored++
}

// ancestors calls f with each proper ancestor directory of rel, nearest
// last, until f returns true.
func ancestors(rel string, f func(dir string) bool) bool {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && f(rel[:i]) {
			return true
		}
	}
	return false
}

func (w *walker) underUnreadable(rel string) bool {
	return ancestors(rel, func(d string) bool { return w.unreadable[d] })
}

func (w *walker) excludedAncestor(rel string) (string, bool) {
	var pat string
	found := ancestors(rel, func(d string) bool {
		pat = w.excludedDirs[d]
		return pat != ""
	})
	return pat, found
}

// ignoreReason says why a known path was not met: it or an ancestor is
// ignored, or is a symlink not followed.
func (w *walker) ignoreReason(rel string) string {
	if r := w.ignoredFiles[rel]; r != "" {
		return r
	}
	if r := w.pruned[rel]; r != "" {
		return r
	}
	var reason string
	ancestors(rel, func(d string) bool {
		reason = w.pruned[d]
		return reason != ""
	})
	return reason
}
