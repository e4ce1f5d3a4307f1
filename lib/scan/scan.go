// Package scan is dir2mcp's discovery stage (SPEC §7.1–7.3): it walks a
// root directory and emits one record.Document per file, classified, hashed,
// checked against the exclusion engine and compared with what the state dir
// already holds, followed by one record per previously known path that is
// gone.
//
// # What is walked
//
// Directories matching DefaultIgnore or Options.Ignore are not entered, nor
// is the state directory; with Options.Gitignore, .gitignore files (and
// $GIT_DIR/info/exclude) prune the walk as git would. Ignored paths produce
// no record. Symlinks produce no record unless Options.FollowSymlinks is set
// (see Options). Only regular files are read; FIFOs, sockets and devices are
// passed over. A name that is not valid UTF-8 cannot be carried by an NDJSON
// record: it is reported through Options.Warn and passed over.
//
// # Records
//
// RelPath is slash-separated and relative to the root, byte-for-byte the
// name on disk (not Unicode-normalised), so it always reopens the same file.
// Records come in walk order — depth-first, each directory's entries sorted
// by name, as filepath.WalkDir visits them — then the records of known paths
// not met on the walk, sorted by path. The order does not depend on timing.
//
// Status is ok, skipped (Code FILE_TOO_LARGE, BINARY_SKIPPED,
// PATH_EXCLUDED or SECRET_EXCLUDED) or error (Code EXTRACT_FAILED: the file
// could not be read). Reasons name the rule or limit involved, never the
// text a secret pattern matched. ContentHash is "sha256:<hex>" of the raw
// bytes, set for every file read in full.
//
// Content is scanned for secrets in text-like documents (code, text, md,
// data, html) only: the bytes of PDFs, images, audio and archives are not
// what a client is served, so the stage that extracts their text must check
// that text with the same exclude.Engine.
//
// Change compares with Options.Known: new (not known, or known as deleted),
// unchanged, modified, or deleted (known, not deleted, and now absent or
// ignored). Unchanged means the consumer has nothing to redo: same content
// hash and same status. An unchanged record may still carry a new size and
// mtime (a touched file); store them, so the next scan can take the
// size+mtime shortcut.
//
// A path that was indexed and is now excluded is not silently dropped: a
// file matching a path exclude gets a skipped PATH_EXCLUDED record (inside
// an excluded directory, which the walk does not enter, the known files
// do), a file
// whose content now matches a secret pattern gets a skipped SECRET_EXCLUDED
// record, and a file now ignored gets a deleted record whose Reason names
// the ignore rule. Either way the consumer must drop the document's
// representations and chunks. Known paths inside a directory that could not
// be listed get no record at all: they are neither confirmed nor deleted.
package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// MaxTextBytes bounds a text-like file read into memory (for secret
// scanning) when SizeCaps sets no smaller cap; a larger one is skipped as
// FILE_TOO_LARGE.
const MaxTextBytes = 512 << 20

// Known is what the state dir holds for a path (source_type file only).
type Known struct {
	SizeBytes   int64
	MtimeNs     int64
	ContentHash string
	Status      string // ok | skipped | error
	// Code and Reason are the stored record's; with Code BINARY_SKIPPED or
	// SECRET_EXCLUDED an unchanged file keeps its verdict without being
	// read. Leave Code empty if it is not stored: such files are reread.
	Code    string
	Reason  string
	Deleted bool
	// DocType and Lang are the stored classification. A file whose name
	// does not decide its type and whose size and mtime are unchanged
	// takes them instead of being opened and sniffed again; leave them
	// empty if not stored.
	DocType string
	Lang    string
}

// Options configures a walk.
type Options struct {
	Root string // the directory to walk; made absolute
	// StateDir is never walked (default <Root>/.dir2mcp; a relative path is
	// taken from the working directory). It must not be the root or hold
	// it (CONFIG_INVALID).
	StateDir string
	// Gitignore honours .gitignore files, and $GIT_DIR/info/exclude and the
	// .gitignore files above the root when the root is inside a work tree.
	Gitignore bool
	// FollowSymlinks follows a symlink only when its target resolves inside
	// the root, outside the state dir, and is not ignored or path-excluded;
	// the target is recorded at the link's path. A directory link is not
	// followed into one of its own ancestors (a loop), and a directory is
	// entered through links at most once per walk. Links not followed are
	// reported through Warn. When false (the default), symlinks are passed
	// over without a record.
	FollowSymlinks bool
	// Ignore holds extra gitignore-style patterns, applied after
	// DefaultIgnore. A bad one is CONFIG_INVALID naming ingest.ignore[i].
	Ignore []string
	// SizeCaps returns the size cap in bytes for a doc type; 0 means none.
	// nil means no caps (text-like files are still bounded by MaxTextBytes).
	SizeCaps func(docType string) int64
	// Exclude is the exclusion engine; nil means exclude.Default().
	Exclude *exclude.Engine
	// Known maps rel_path to what the state dir holds; nil means empty.
	Known map[string]Known
	// LoadKnown, when set, returns Known instead: it runs while the walk
	// lists directories and stats files, and the files are compared once
	// it returns. An error ends the walk with that error.
	LoadKnown func() (map[string]Known, error)
	// OnDir, when set, is called with the absolute path of each directory
	// before the walk lists it (the root first), possibly from another
	// goroutine than emit's: a watcher registered there misses no change
	// the listing could miss.
	OnDir func(absDir string)
	// Rehash rereads every file instead of trusting an unchanged size and
	// mtime. Set it when the secret patterns changed since the last scan
	// (compare exclude.Engine.Fingerprint), since a file taken as unchanged
	// is not scanned again.
	Rehash bool
	// Workers is the number of files processed in parallel; 0 = GOMAXPROCS.
	Workers int
	// Warn receives problems that are not about one document: a directory
	// that cannot be listed, a symlink FollowSymlinks may not follow, an
	// unreadable ignore file, a name that is not UTF-8. It is called from the goroutine that
	// calls emit, in walk order. nil discards them.
	Warn func(relPath, msg string)
}

// Stats counts a walk's records.
type Stats struct {
	Scanned   int // records for files present on disk
	New       int
	Modified  int
	Unchanged int
	Deleted   int
	Skipped   int   // status skipped
	Errors    int   // status error
	Ignored   int   // entries passed over without a record (ignore rules, symlinks, special files)
	Warnings  int   // calls to Warn
	Bytes     int64 // total size of the files scanned
	BytesRead int64 // bytes read from disk
	// Entries counts the directory entries the walk met (an ignored
	// directory counts once), less the state directory and those of the
	// built-in ignore list; IgnoredBy the rules of .gitignore files,
	// ingest.ignore and security.path_excludes that passed entries over,
	// most first (see IgnoreHint).
	Entries   int
	IgnoredBy []RuleHits
}

// Walk walks opt.Root and calls emit for each record, in the order the
// package documentation describes. It stops at the first error emit returns
// and returns it. A root that does not exist, is not a directory or cannot
// be listed is a *errcode.Error with code ROOT_INACCESSIBLE; a bad
// Options.Ignore pattern is CONFIG_INVALID. Per-file problems are records,
// not errors. Cancelling ctx stops the walk with ctx.Err().
func Walk(ctx context.Context, opt Options, emit func(record.Document) error) (Stats, error) {
	s, err := newScanner(opt)
	if err != nil {
		return Stats{}, err
	}
	return s.run(ctx, emit)
}

// scanner is the state of one Walk.
type scanner struct {
	opt       Options
	root      string // absolute, clean
	realRoot  string // root with symlinks resolved
	stateRel  string // state dir relative to root, "" when outside
	stateReal string // state dir with symlinks resolved
	base      exclude.Rules
	baseFiles *exclude.FileRules // base, for files
	engine    *exclude.Engine
	workers   int

	known      map[string]Known // ready once knownReady is closed
	knownReady chan struct{}
	knownErr   error
}

// knownMap returns the known states, waiting for LoadKnown.
func (s *scanner) knownMap() map[string]Known {
	<-s.knownReady
	return s.known
}

// knownLoaded reports whether the known states are there, without waiting.
func (s *scanner) knownLoaded() bool {
	select {
	case <-s.knownReady:
		return true
	default:
		return false
	}
}

func newScanner(opt Options) (*scanner, error) {
	if opt.Root == "" {
		return nil, errcode.New(errcode.RootInaccessible, "no root directory given")
	}
	root, err := filepath.Abs(opt.Root)
	if err != nil {
		return nil, errcode.Wrap(errcode.RootInaccessible, err, "root %s: %v", opt.Root, err)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, errcode.Wrap(errcode.RootInaccessible, err, "root %s is not accessible: %v", root, unwrapPathError(err))
	}
	if !fi.IsDir() {
		return nil, errcode.New(errcode.RootInaccessible, "root %s is not a directory", root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, errcode.Wrap(errcode.RootInaccessible, err, "root %s: %v", root, unwrapPathError(err))
	}
	s := &scanner{opt: opt, root: root, realRoot: realRoot, engine: opt.Exclude, known: opt.Known,
		knownReady: make(chan struct{})}
	if s.engine == nil {
		s.engine = exclude.Default()
	}
	if s.base, err = baseRules(opt.Ignore); err != nil {
		return nil, err
	}
	s.baseFiles = s.base.ForFiles()
	state := opt.StateDir
	if state == "" {
		state = filepath.Join(root, ".dir2mcp")
	}
	if state, err = filepath.Abs(state); err != nil {
		return nil, errcode.Wrap(errcode.ConfigInvalid, err, "state dir %s: %v", opt.StateDir, err)
	}
	s.stateReal = state
	if r, err := filepath.EvalSymlinks(state); err == nil {
		s.stateReal = r
	}
	if _, in := relInside(s.stateReal, realRoot); in {
		return nil, errcode.New(errcode.ConfigInvalid, "state dir %s is the root or contains it; it must be a directory of its own", state)
	}
	if r, ok := relInside(root, state); ok {
		s.stateRel = r
	}
	s.workers = opt.Workers
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	return s, nil
}

// relInside returns p relative to dir, slash-separated, when p is dir or
// inside it.
func relInside(dir, p string) (string, bool) {
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		return "", false
	}
	if r == "." {
		return "", true
	}
	return filepath.ToSlash(r), true
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errStopped ends the walk early (emit failed or ctx was cancelled).
var errStopped = errors.New("scan: stopped")

// earlyJobs bounds the files the walk may list and stat ahead while
// LoadKnown runs (the usual window, 8 per worker, would stop it at once):
// ~300 bytes each (40 MB at most), held until the states are there.
const earlyJobs = 1 << 17

func (s *scanner) run(ctx context.Context, emit func(record.Document) error) (Stats, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var st Stats

	if s.opt.LoadKnown == nil {
		close(s.knownReady)
	} else {
		go func() {
			defer close(s.knownReady)
			if s.known, s.knownErr = s.opt.LoadKnown(); s.knownErr != nil {
				cancel()
			}
		}()
	}

	window := 8*s.workers + 64
	slots := make(chan struct{}, window) // bounds jobs between walk and emit
	jobs := make(chan *job, window+earlyJobs)
	results := make(chan *job, window)

	w := newWalker(s)
	var walkErr error
	go func() {
		defer close(jobs)
		seq, early := 0, 0
		w.send = func(j *job) bool {
			// Until the known states are loaded the walk runs ahead
			// (up to earlyJobs), listing and statting; then the window
			// holds.
			if early < earlyJobs && !s.knownLoaded() {
				early++
				j.early = true
			} else {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return false
				}
			}
			j.seq = seq
			seq++
			select {
			case jobs <- j:
				return true
			case <-ctx.Done():
				return false
			}
		}
		walkErr = w.walk(ctx)
	}()

	var wg sync.WaitGroup
	for i := 0; i < s.workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(ctx, jobs, results)
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	var seen delivered
	pending := make(map[int]*job)
	next := 0
	var emitErr error
	for j := range results {
		if emitErr != nil || ctx.Err() != nil {
			continue // drain
		}
		pending[j.seq] = j
		for ctx.Err() == nil {
			j, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if !j.early {
				<-slots
			}
			if err := s.deliver(j, &st, &seen, emit); err != nil {
				emitErr = err
				cancel()
				break
			}
		}
	}
	if emitErr != nil {
		return st, emitErr
	}
	<-s.knownReady
	if s.knownErr != nil {
		return st, s.knownErr
	}
	if walkErr != nil && !errors.Is(walkErr, errStopped) {
		return st, walkErr
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	st.Ignored += w.ignored
	st.Entries, st.IgnoredBy = w.entries, w.rules.sorted()
	for _, d := range s.gone(w, &seen) {
		countDoc(&st, d)
		if err := emit(d); err != nil {
			return st, err
		}
	}
	return st, nil
}

// delivered is the paths the walk delivered records for that are known
// and live.
type delivered struct{ paths []string }

// add notes the record of a file that is known and not deleted.
func (d *delivered) add(known map[string]Known, rel string) {
	if d.paths == nil {
		d.paths = make([]string, 0, len(known))
	}
	d.paths = append(d.paths, rel)
}

// deliver hands one finished job to emit (or Warn) and counts it.
func (s *scanner) deliver(j *job, st *Stats, seen *delivered, emit func(record.Document) error) error {
	switch {
	case j.warn != "":
		st.Warnings++
		if s.opt.Warn != nil {
			s.opt.Warn(j.rel, j.warn)
		}
		return nil
	case j.doc == nil:
		// Gone since it was listed, or no longer a regular file: a known
		// path gets a deleted record after the walk.
		if !j.vanished {
			st.Ignored++
		}
		return nil
	}
	if j.known {
		seen.add(s.knownMap(), j.rel)
	}
	st.BytesRead += j.bytesRead
	countDoc(st, *j.doc)
	return emit(*j.doc)
}

func countDoc(st *Stats, d record.Document) {
	switch d.Change {
	case record.ChangeNew:
		st.New++
	case record.ChangeModified:
		st.Modified++
	case record.ChangeUnchanged:
		st.Unchanged++
	case record.ChangeDeleted:
		st.Deleted++
		return
	}
	st.Scanned++
	st.Bytes += d.SizeBytes
	switch d.Status {
	case record.StatusSkipped:
		st.Skipped++
	case record.StatusError:
		st.Errors++
	}
}

// gone returns the records for known paths the walk did not meet, sorted
// by path: skipped PATH_EXCLUDED inside an excluded directory, nothing
// inside a directory that could not be listed, deleted otherwise.
func (s *scanner) gone(w *walker, seen *delivered) []record.Document {
	known := s.knownMap()
	live := 0
	for _, k := range known {
		if !k.Deleted {
			live++
		}
	}
	if len(seen.paths) == live {
		return nil // every known file was met (each path is delivered once)
	}
	met := make(map[string]bool, len(seen.paths))
	for _, p := range seen.paths {
		met[p] = true
	}
	var paths []string
	for rel, k := range known {
		if !k.Deleted && !met[rel] {
			paths = append(paths, rel)
		}
	}
	sort.Strings(paths)
	var out []record.Document
	for _, rel := range paths {
		k := known[rel]
		d := record.NewDocument()
		d.Root, d.RelPath, d.SourceType = s.root, rel, record.SourceFile
		if c, ok := classifyName(path.Base(rel)); ok {
			d.DocType, d.Lang = c.docType, c.lang
		}
		d.SizeBytes, d.MtimeNs, d.MtimeUnix = k.SizeBytes, k.MtimeNs, k.MtimeNs/1e9
		if w.underUnreadable(rel) {
			continue
		}
		if pat, ok := w.excludedAncestor(rel); ok {
			d.Status, d.Code = record.StatusSkipped, string(errcode.PathExcluded)
			d.Reason = fmt.Sprintf("path matches security.path_excludes pattern %q", pat)
			d.Change = record.ChangeModified
			if k.Status == record.StatusSkipped && k.Code == string(errcode.PathExcluded) {
				d.Change = record.ChangeUnchanged
			}
			out = append(out, d)
			continue
		}
		d.Change = record.ChangeDeleted
		d.Status = k.Status
		if d.Status == "" {
			d.Status = record.StatusOK
		}
		d.Reason = w.ignoreReason(rel)
		if d.Reason == "" {
			d.Reason = "no longer exists"
		}
		out = append(out, d)
	}
	return out
}
