package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// Status is the state of an indexing job as users see it: run counters
// plus the store's totals.
type Status struct {
	JobID   string
	Running bool
	Mode    string // incremental | full
	Run     Snapshot
	Totals  store.Counts
	// Interrupted: the job stopped before it finished (see state.Indexing).
	Interrupted bool
	// ResumedFrom is the interrupted job this one resumes.
	ResumedFrom string
}

// ProgressLine renders the SPEC §3.1 progress line.
func (s Status) ProgressLine() string {
	return fmt.Sprintf("Progress: scanned=%d indexed=%d skipped=%d deleted=%d reps=%d chunks=%d embedded=%d errors=%d",
		s.Run.Scanned, s.Run.Indexed, s.Run.Skipped, s.Run.Deleted, s.Run.Reps,
		s.Totals.Chunks, s.Totals.Embedded, s.Run.Errors)
}

// Corpus renders corpus.json for this status.
func (s Status) Corpus(root string, models state.Models, started, finished time.Time) state.Corpus {
	counts := map[string]int64{}
	var code, all int64
	for t, n := range s.Totals.ByDocType {
		counts[t] = n
		all += n
		if t == record.DocCode {
			code += n
		}
	}
	ratio := 0.0
	if all > 0 {
		ratio = float64(code) / float64(all)
	}
	ix := state.Indexing{
		JobID: s.JobID, Running: s.Running, Mode: s.Mode, PID: os.Getpid(),
		Scanned: s.Run.Scanned, Indexed: s.Run.Indexed, Skipped: s.Run.Skipped, Deleted: s.Run.Deleted,
		Unchanged: s.Run.Unchanged, Representations: s.Totals.Representations,
		ChunksTotal: s.Totals.Chunks, EmbeddedOK: s.Totals.Embedded, Errors: s.Run.Errors,
		StartedAt: started.UTC().Format(time.RFC3339), Interrupted: s.Interrupted, ResumedFrom: s.ResumedFrom,
	}
	if !finished.IsZero() {
		ix.FinishedAt = finished.UTC().Format(time.RFC3339)
	}
	return state.Corpus{Root: root, Profile: state.Profile{DocCounts: counts, CodeRatio: ratio}, Models: models,
		Indexing: ix, UpdatedAt: time.Now().UTC().Format(time.RFC3339)}
}

// Reporter publishes a job's progress: progress events (or lines) and
// corpus.json, every Interval while the job runs and once at the end.
type Reporter struct {
	Root     string
	Dir      state.Dir
	Store    *store.Store
	Events   *events.Emitter
	Models   state.Models
	Interval time.Duration
	// Line, when set, receives the human progress line instead of Events
	// (a TTY progress bar, for example).
	Line func(Status)
	// ResumedFrom is set by Start when the previous job was interrupted
	// and this incremental job picks it up.
	ResumedFrom string

	job     string
	mode    string
	started time.Time
	prog    *Progress
	last    Status
}

// Start begins reporting prog for a job; call the returned stop function
// with the job's outcome when it ends. Start must run under the writer
// locks: it reads the previous job from corpus.json and, when that job was
// interrupted, reports that this one resumes it (index_resumed).
func (r *Reporter) Start(ctx context.Context, jobID, mode string, prog *Progress) (stop func(err error) Status) {
	r.job, r.mode, r.started, r.prog = jobID, mode, time.Now(), prog
	r.resume(ctx)
	interval := r.Interval
	if interval <= 0 {
		interval = 2 * time.Second
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				r.publish(ctx, true, false, time.Time{})
			}
		}
	}()
	return func(err error) Status {
		close(done)
		<-finished
		interrupted := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
		st := r.publish(context.WithoutCancel(ctx), false, interrupted, time.Now())
		data := map[string]any{
			"job_id": r.job, "duration_ms": time.Since(r.started).Milliseconds(),
			"scanned": st.Run.Scanned, "indexed": st.Run.Indexed, "unchanged": st.Run.Unchanged,
			"skipped": st.Run.Skipped, "deleted": st.Run.Deleted, "errors": st.Run.Errors,
			"chunks_added": st.Run.ChunksAdded, "chunks_kept": st.Run.ChunksKept, "chunks_removed": st.Run.ChunksRemoved,
			"chunks_total": st.Totals.Chunks, "embedded_ok": st.Totals.Embedded, "embed_errors": st.Run.EmbedErrors,
		}
		switch {
		case interrupted:
			data["pending"] = st.Totals.Pending
			data["message"] = fmt.Sprintf("Indexing interrupted: %d files scanned, %d indexed, %d unchanged, %d skipped, %d deleted, %d errors; %d chunks, %d embedded, %d pending (%.1fs); the next `dir2mcp up` or `dir2mcp index` resumes it",
				st.Run.Scanned, st.Run.Indexed, st.Run.Unchanged, st.Run.Skipped, st.Run.Deleted, st.Run.Errors,
				st.Totals.Chunks, st.Totals.Embedded, st.Totals.Pending, time.Since(r.started).Seconds())
			r.Events.Emit(events.Warn, record.EvIndexInterrupted, data)
		case err != nil:
			data["error"] = err.Error()
			data["message"] = fmt.Sprintf("Indexing stopped after %.1fs: %v", time.Since(r.started).Seconds(), err)
			r.Events.Emit(events.Error, record.EvIndexDone, data)
		default:
			data["message"] = fmt.Sprintf("Indexing complete: %d files scanned, %d indexed, %d unchanged, %d skipped, %d deleted, %d errors; %d chunks, %d embedded%s (%.1fs)",
				st.Run.Scanned, st.Run.Indexed, st.Run.Unchanged, st.Run.Skipped, st.Run.Deleted, st.Run.Errors,
				st.Totals.Chunks, st.Totals.Embedded, embedFailures(st.Run.EmbedErrors), time.Since(r.started).Seconds())
			if x, err := secretExcluded(context.WithoutCancel(ctx), r.Store); err == nil && len(x) > 0 {
				data["secret_excluded"] = x
				data["message"] = data["message"].(string) + "\n" + corpus.ExcludedLine(x, maxExcludedNamed)
			}
			r.Events.Emit(events.Info, record.EvIndexDone, data)
		}
		return st
	}
}

// resume reports (index_resumed) that an incremental job picks up an
// interrupted one: stopped by a signal, a departed stdio client or a crash.
func (r *Reporter) resume(ctx context.Context) {
	prev, err := r.Dir.ReadCorpus()
	if err != nil || r.mode == "full" {
		return
	}
	ix := prev.Indexing
	if ix.PID == os.Getpid() || !ix.Live().Interrupted {
		return
	}
	r.ResumedFrom = ix.JobID
	var pending int64
	if c, err := r.Store.Counts(ctx); err == nil {
		pending = c.Pending
	}
	r.Events.Emit(events.Info, record.EvIndexResumed, map[string]any{
		"job_id": r.job, "resumed_from": ix.JobID, "previous_scanned": ix.Scanned, "previous_indexed": ix.Indexed, "pending": pending,
		"message": fmt.Sprintf("Resuming interrupted indexing job %s (it had scanned %d files and indexed %d; %d chunks await embedding)",
			ix.JobID, ix.Scanned, ix.Indexed, pending),
	})
}

// keySecretExcluded holds the files excluded as secrets (as JSON) of a
// store generation.
const keySecretExcluded = "derived.secret_excluded"

// secretExcluded lists the files excluded as secrets, for the summary. The
// list is kept per store generation: a run that changed nothing (a no-op
// restart) reads it back instead of searching every document row again
// (25 ms on the Linux source, before index_complete).
func secretExcluded(ctx context.Context, st *store.Store) ([]corpus.Excluded, error) {
	v, at, now, ok, err := st.Derived(ctx, keySecretExcluded)
	if err != nil {
		return nil, err
	}
	var x []corpus.Excluded
	if ok && at == now && json.Unmarshal([]byte(v), &x) == nil {
		return x, nil
	}
	// Labelled with the generation read before: a write since makes it
	// stale, never wrong.
	x, err = corpus.ExcludedDocs(ctx, st, []string{string(errcode.SecretExcluded)}, nil, nil)
	if err != nil {
		return nil, err
	}
	if b, err := json.Marshal(x); err == nil {
		_ = st.SetDerived(ctx, keySecretExcluded, now, string(b))
	}
	return x, nil
}

// maxExcludedNamed bounds the files excluded as secrets the summary names.
const maxExcludedNamed = 10

func (r *Reporter) publish(ctx context.Context, running, interrupted bool, finished time.Time) Status {
	st := Status{JobID: r.job, Running: running, Mode: r.mode, Run: r.prog.Snapshot(), Interrupted: interrupted, ResumedFrom: r.ResumedFrom}
	if c, err := r.Store.Counts(ctx); err == nil {
		st.Totals = c
	} else {
		st.Totals = r.last.Totals
	}
	r.last = st
	_ = r.Dir.WriteCorpus(st.Corpus(r.Root, r.Models, r.started, finished))
	if !running && !r.Events.JSON() {
		return st
	}
	if r.Line != nil && running {
		r.Line(st)
		return st
	}
	if r.Events.JSON() {
		r.Events.Emit(events.Info, record.EvScanProgress, map[string]any{
			"scanned": st.Run.Scanned, "indexed": st.Run.Indexed, "unchanged": st.Run.Unchanged,
			"skipped": st.Run.Skipped, "deleted": st.Run.Deleted, "reps": st.Run.Reps, "errors": st.Run.Errors,
		})
		r.Events.Emit(events.Info, record.EvEmbedProgress, map[string]any{
			"chunks_total": st.Totals.Chunks, "embedded_ok": st.Totals.Embedded, "pending": st.Totals.Pending,
			"embedded_this_run": st.Run.Embedded, "errors": st.Totals.EmbedErrors,
		})
		return st
	}
	r.Events.Printf("%s\n", st.ProgressLine())
	return st
}

func embedFailures(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d failed to embed", n)
}
