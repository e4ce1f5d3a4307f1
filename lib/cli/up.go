package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/version"
	"github.com/dir2mcp/dir2mcp/lib/watch"
	ucli "github.com/urfave/cli/v3"
)

func upCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "up",
		Usage: "start the MCP server now and index the directory in the background",
		Description: "Binds the MCP endpoint first, prints how to connect, then scans, extracts and embeds " +
			"the directory incrementally while serving. Keeps the index fresh as files change (ingest.watch).",
		Flags:  serverFlags(),
		Action: runUp,
	}
}

// tracker exposes the state of the current indexing job to the server.
type tracker struct {
	mu       sync.Mutex
	job      string
	mode     string
	running  bool
	resumed  string // the interrupted job the current one resumes
	blocked  bool   // waiting for another writer to release the index
	progress *indexer.Progress
}

func (t *tracker) start(mode string) *indexer.Progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.job, t.mode, t.running, t.resumed, t.progress = newJobID(), mode, true, "", &indexer.Progress{}
	return t.progress
}

func (t *tracker) setResumed(job string) {
	t.mu.Lock()
	t.resumed = job
	t.mu.Unlock()
}

func (t *tracker) setBlocked(b bool) {
	t.mu.Lock()
	t.blocked = b
	t.mu.Unlock()
}

func (t *tracker) finish() {
	t.mu.Lock()
	t.running = false
	t.mu.Unlock()
}

// status is the job as tools see it. While another writer holds the index
// indexing counts as running: the index may change under the searches.
func (t *tracker) status(context.Context) indexer.Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := indexer.Status{JobID: t.job, Running: t.running || t.blocked, Mode: t.mode, ResumedFrom: t.resumed}
	if t.progress != nil {
		st.Run = t.progress.Snapshot()
	}
	return st
}

func newJobID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "job_" + time.Now().UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b)
}

// preflight refuses to start when an enabled feature lacks credentials
// (SPEC §2.5, §3.3) or the x402 price policy is invalid.
func preflight(e *env) error {
	if err := checkPayments(e.cfg); err != nil {
		return err
	}
	m := config.MissingCredentials(e.cfg)
	if len(m) == 0 {
		return nil
	}
	if e.interactive() {
		return promptMissing(ttyPrompter{in: os.Stdin, out: e.stderr}, e.stderr, e.cfg, m)
	}
	return missingError(m)
}

// setupIndexer resolves the environment of a command that indexes (up,
// index, reindex): config and credentials checked, store open for writing,
// config snapshot written, index_loaded reported.
func setupIndexer(ctx context.Context, cmd *ucli.Command) (*env, *store.Store, error) {
	e, st, loaded, err := prepareIndexer(ctx, cmd)
	if err == nil {
		if err = loaded(); err != nil {
			st.Close()
		}
	}
	return e, st, err
}

// prepareIndexer is setupIndexer for a server, which listens before it
// reports index_loaded: the index's totals are counted in the background
// and loaded waits for them and reports the event.
func prepareIndexer(ctx context.Context, cmd *ucli.Command) (*env, *store.Store, func() error, error) {
	limitIndexMemory()
	e, err := setupServer(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := preflight(e); err != nil {
		return nil, nil, nil, err
	}
	st, err := e.openStore(ctx, createStore)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := config.WriteSnapshot(e.dir.Join(state.SnapshotFile), e.cfg, e.src); err != nil {
		st.Close()
		return nil, nil, nil, errcode.Wrap(errcode.StoreCorrupt, err, "write config snapshot: %v", err)
	}
	return e, st, countIndex(ctx, e, st), nil
}

// openIndex opens (creating if needed) the store for a long-running command
// and reports index_loaded.
func openIndex(ctx context.Context, e *env) (*store.Store, error) {
	st, err := e.openStore(ctx, createStore)
	if err != nil {
		return nil, err
	}
	if err := countIndex(ctx, e, st)(); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// countIndex counts the index's totals in the background; the function it
// returns waits for them and reports index_loaded.
func countIndex(ctx context.Context, e *env, st *store.Store) func() error {
	type result struct {
		c   store.Counts
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := st.Counts(ctx)
		done <- result{c, err}
	}()
	return func() error {
		r := <-done
		if r.err != nil {
			return r.err
		}
		c := r.c
		e.ev.Emit(events.Info, record.EvIndexLoaded, map[string]any{
			"state_dir": e.dir.Path, "documents": c.Documents, "chunks": c.Chunks, "embedded": c.Embedded,
			"schema_version": store.SchemaVersion,
			"message":        fmt.Sprintf("Loaded index %s: %d documents, %d chunks (%d embedded)", e.dir.Path, c.Documents, c.Chunks, c.Embedded),
		})
		return nil
	}
}

func runUp(ctx context.Context, cmd *ucli.Command) error {
	e, st, loaded, err := prepareIndexer(ctx, cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	// A server merges its keyword index's segments once idle.
	defer postings.Serving(e.dir.Path)()
	// The first run's comparison data is read while the server gets ready.
	pre := indexer.Preload(ctx, st)
	tr := &tracker{mode: "incremental"}
	svc, err := startService(ctx, e, st, tr.status)
	if err != nil {
		loaded()
		return err
	}
	defer svc.shutdown()
	if err := loaded(); err != nil {
		return err
	}
	if err := svc.announce("incremental"); err != nil {
		return err
	}
	embs, err := embedders.Open(e.cfg)
	if err != nil {
		return err
	}
	warm := time.AfterFunc(warmAfter, svc.warm)
	defer warm.Stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	indexed := make(chan error, 1)
	go func() { indexed <- keepIndexed(ctx, e, st, embs, svc, tr, pre) }()
	select {
	case <-ctx.Done():
		cancel()
		<-indexed
		return nil
	case err := <-svc.served:
		cancel()
		<-indexed
		if err == nil { // the stdio client closed stdin
			return nil
		}
		return errcode.Wrap(errcode.BindFailed, err, "server stopped: %v", err)
	case err := <-indexed:
		if err != nil {
			return err
		}
		// Indexing ended without error and without watching: keep serving.
		select {
		case <-ctx.Done():
			return nil
		case err := <-svc.served:
			return err
		}
	}
}

// keepIndexed runs the initial index, then re-runs it incrementally on every
// burst of file changes (ingest.watch) and whenever a tool stored chunks
// that await embedding, until ctx ends. Only a fatal error stops it.
func keepIndexed(ctx context.Context, e *env, st *store.Store, embs map[string]embed.Embedder, svc *service, tr *tracker, pre *indexer.Preloaded) error {
	changed := make(chan struct{}, 1)
	var onDir func(string)
	if e.cfg.Ingest.Watch {
		// Each run's scan adds the directories it lists to the watch
		// (before listing them): the tree is walked once, not also by
		// the watcher, and directories the scan does not enter (ignored,
		// excluded) are not watched.
		w, err := watch.New(e.root.Dir(), watch.Options{
			Skip: watchSkip(e),
			Warn: func(msg string) { e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": msg}) },
		})
		if err != nil {
			e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": "cannot watch for changes: " + err.Error()})
		} else {
			onDir = w.AddWalked // the scan skips the state dir and every ignored directory
			go func() { _ = w.Run(ctx, changed) }()
		}
	}
	restoreGC := relaxGC()
	for {
		err := runJob(ctx, e, st, embs, tr, false, svc, onDir, pre)
		pre = nil // for the first run only
		restoreGC()
		paceServerGC() // serving from now on; a first (full) run keeps the default pace
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			e.ev.Emit(events.Error, record.EvFatal, map[string]any{"code": string(errcode.Of(err)), "message": errcode.As(err).Message})
			return err
		}
		svc.warm() // after the first run: see warm
		svc.warmRefs()
		// Give the job's garbage back before idling: left to the runtime,
		// a heap that grew to twice its live size while indexing stays
		// resident until the next GC cycle, which an idle server never has.
		debug.FreeOSMemory()
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-svc.pending:
		}
	}
}

// relaxGC raises the garbage collector's target for the start of a
// server's first run, unless GOGC or GOMEMLIMIT are set: a restart's no-op
// run allocates in a burst (the documents' states, a record per file) and
// keeps little, and at the default target the collector ran five times in
// its first 0.15 s on the Go tree. The target is restored by the returned
// function (the run is over) or after relaxedGCFor, whichever comes first,
// so a long first run (a fresh index) collects as usual; the garbage goes
// back to the OS after the run (keepIndexed).
func relaxGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	// The heap stays under indexMemoryLimit (set by prepareIndexer under
	// the same condition) whatever the percent.
	old := debug.SetGCPercent(relaxedGCPercent)
	var once sync.Once
	undo := func() { once.Do(func() { debug.SetGCPercent(old) }) }
	t := time.AfterFunc(relaxedGCFor, undo)
	return func() { t.Stop(); undo() }
}

const (
	relaxedGCPercent = 400
	relaxedGCFor     = 2 * time.Second
)

// lockPoll is how often a server waiting for another writer retries the
// index lock.
const lockPoll = 500 * time.Millisecond

// lockWriters takes the writer locks for a job. With svc nil (index,
// reindex) another writer is an INDEX_LOCKED error; a server (svc set)
// instead reports once that it serves the existing index and waits for the
// writer to finish.
func lockWriters(ctx context.Context, e *env, tr *tracker, svc *service) (func(), error) {
	release, err := indexer.Lock(e.dir)
	if err == nil || svc == nil || errcode.Of(err) != errcode.IndexLocked {
		return release, err
	}
	var held *state.LockedError
	if !errors.As(err, &held) {
		return nil, err
	}
	tr.setBlocked(true) // before the event: a client reacting to it sees indexing as running
	defer tr.setBlocked(false)
	e.ev.Emit(events.Warn, record.EvIndexLocked, map[string]any{
		"pid": held.Holder.PID, "command": held.Holder.Command, "lock": held.Lock,
		"message": fmt.Sprintf("index locked by %s; serving the existing index, will retry when it is free", held.Holder),
	})
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
		release, err := indexer.Lock(e.dir)
		if err == nil || errcode.Of(err) != errcode.IndexLocked {
			return release, err
		}
	}
}

// runJob runs one indexing job with progress reporting. A server (svc set)
// waits for another writer to release the index first; index and reindex
// fail with INDEX_LOCKED.
func runJob(ctx context.Context, e *env, st *store.Store, embs map[string]embed.Embedder, tr *tracker, full bool, svc *service,
	onDir func(string), pre *indexer.Preloaded) error {
	media, err := e.media()
	if err != nil {
		return err
	}
	release, err := lockWriters(ctx, e, tr, svc)
	if err != nil {
		return err
	}
	defer release()
	mode := "incremental"
	if full {
		mode = "full"
	}
	prog := tr.start(mode)
	ids := map[string]string{}
	for k, m := range embs {
		ids[k] = m.ID()
	}
	rep := &indexer.Reporter{Root: e.root.Dir(), Dir: e.dir, Store: st, Events: e.ev, Models: e.modelNames(ids)}
	bar := newProgressBar(ctx, e, st, prog)
	if bar != nil {
		rep.Line = func(indexer.Status) {} // the bar draws progress itself
	}
	stop := rep.Start(ctx, tr.status(ctx).JobID, mode, prog)
	tr.setResumed(rep.ResumedFrom)
	job := &indexer.Job{Config: e.cfg, Root: e.root.Dir(), Dir: e.dir, Store: st, Embedders: embs,
		Events: e.ev, Progress: prog, Full: full, Media: media, OnDir: onDir, Preloaded: pre}
	if svc != nil {
		job.Flushed = svc.refresh
	}
	err = job.RunLocked(ctx)
	bar.finish(err) // its last lines and the warnings go before the summary
	tr.finish()     // before index_complete is reported: searches after it see a finished job
	if ctx.Err() != nil {
		stop(ctx.Err()) // reported as interrupted, never as complete
		return ctx.Err()
	}
	stop(err)
	return err
}

// watchSkip tells the watcher which directories never need watching: the
// state dir and the built-in and configured ignore patterns.
func watchSkip(e *env) func(string) bool {
	stateRel, err := filepath.Rel(e.root.Dir(), e.dir.Path)
	if err != nil || strings.HasPrefix(stateRel, "..") {
		stateRel = ""
	}
	stateRel = filepath.ToSlash(stateRel)
	var rules exclude.Rules
	for _, s := range append(append([]string{}, scan.DefaultIgnore...), e.cfg.Ingest.Ignore...) {
		if p, err := exclude.ParsePattern(s); err == nil {
			rules = append(rules, p)
		}
	}
	return func(rel string) bool {
		if rel == stateRel {
			return true
		}
		_, skip := rules.Excluded(rel, true)
		return skip
	}
}

// versionString is used by `version` and the server.
func versionString() string {
	return fmt.Sprintf("dir2mcp %s (MCP %s, store schema %d)", version.Version, state.ProtocolVersion, store.SchemaVersion)
}
