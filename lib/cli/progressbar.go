package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"golang.org/x/term"
)

// Progress phases, in order.
const (
	phaseScan = iota
	phaseExtract
	phaseEmbed
	phaseDone
)

// maxWarningsShown bounds the warning summary after the bar.
const maxWarningsShown = 20

// progressBar draws indexing progress on a terminal, one bar per phase:
// scan (the total is unknown, so counts: files found, extracted, chunks
// embedded — the stages overlap), extract (files taken out of all those
// found) and embed (chunks of this run embedded, out of those embedded and
// waiting when extraction ended). A phase's bar starts only once its total
// is final, so its percentage never goes back; a finished phase keeps its
// own line. The line fits the terminal's width (80 columns when unknown).
// While the bar shows, other output lines are printed above it and warnings
// are collected, then summarized after the last bar.
type progressBar struct {
	term    io.Writer // the terminal the bar is drawn on (stderr)
	stdout  io.Writer // where information lines go
	width   func() int
	prog    *indexer.Progress
	pending func() int64 // chunks waiting for an embedding
	restore func()       // ends the event diversion

	mu         sync.Mutex
	phase      int
	embedTotal int64 // chunks of this run: embedded (or failed) and waiting when extraction ended
	lastPct    int
	spin       int
	drawn      bool
	warnings   []string
	stop       chan struct{}
	stopped    chan struct{}
	finished   bool
}

// newProgressBar returns a bar when stderr is a terminal and output is
// human and not quiet; otherwise nil (progress lines are printed instead).
// It starts drawing at once; call finish when the job ends.
func newProgressBar(ctx context.Context, e *env, st *store.Store, prog *indexer.Progress) *progressBar {
	fd := int(os.Stderr.Fd())
	if e.jsonOut || e.cmd.Bool("quiet") || !term.IsTerminal(fd) {
		return nil
	}
	b := &progressBar{
		term: os.Stderr, stdout: e.stdout, prog: prog,
		width: func() int {
			if w, _, err := term.GetSize(fd); err == nil && w > 0 {
				return w
			}
			return 80
		},
		pending: func() int64 {
			c, err := st.Counts(context.WithoutCancel(ctx))
			if err != nil {
				return 0
			}
			return c.Pending
		},
		stop: make(chan struct{}), stopped: make(chan struct{}),
	}
	b.restore = e.ev.Divert(b.divert)
	go b.loop(150 * time.Millisecond)
	return b
}

func (b *progressBar) loop(every time.Duration) {
	defer close(b.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.mu.Lock()
			b.advance()
			b.draw(b.line(), false)
			b.mu.Unlock()
		}
	}
}

// advance moves to the next phase when the current one has ended, leaving
// the ended phase's final line on the terminal.
func (b *progressBar) advance() {
	for {
		switch {
		case b.phase == phaseScan && b.prog.ScanDone.Load():
		case b.phase == phaseExtract && b.prog.ExtractDone.Load():
			b.embedTotal = b.embedDone() + b.pending()
		default:
			return
		}
		b.draw(b.line(), true)
		b.phase++
		b.lastPct = 0
	}
}

func (b *progressBar) embedDone() int64 {
	return b.prog.Embedded.Load() + b.prog.EmbedErrors.Load()
}

// line renders the current phase.
func (b *progressBar) line() string {
	w := b.width() - 1 // never the last column: the terminal would wrap
	switch b.phase {
	case phaseScan:
		if b.prog.ScanDone.Load() {
			return fit(fmt.Sprintf("%-8s %d files found", "scan", b.prog.Found.Load()), w)
		}
		b.spin++
		return fit(fmt.Sprintf("%-8s %c %d files found, %d extracted, %d chunks embedded", "scan", `|/-\`[b.spin%4],
			b.prog.Found.Load(), b.prog.Scanned.Load(), b.embedDone()), w)
	case phaseExtract:
		extra := ""
		if n := b.prog.Errors.Load(); n > 0 {
			extra = fmt.Sprintf(", %d errors", n)
		}
		return b.bar("extract", b.prog.Scanned.Load(), b.prog.Found.Load(), "files"+extra, w)
	default:
		return b.bar("embed", b.embedDone(), b.embedTotal, "chunks", w)
	}
}

// bar renders "label [#####-----]  42%  done/total unit" in width columns;
// the percentage never drops below the last one shown in this phase.
func (b *progressBar) bar(label string, done, total int64, unit string, width int) string {
	done = min(max(done, 0), total)
	pct := 100
	if total > 0 {
		pct = int(done * 100 / total)
	}
	pct = max(pct, b.lastPct)
	b.lastPct = pct
	tail := fmt.Sprintf(" %3d%%  %d/%d %s", pct, done, total, unit)
	cells := min(40, width-len("12345678 []")-len(tail))
	if cells < 10 {
		return fit(fmt.Sprintf("%-8s%s", label, tail), width)
	}
	full := cells * pct / 100
	return fit(fmt.Sprintf("%-8s [%s%s]%s", label, strings.Repeat("#", full), strings.Repeat("-", cells-full), tail), width)
}

// fit cuts s to width columns (the bar's text is ASCII).
func fit(s string, width int) string {
	if width > 0 && len(s) > width {
		return s[:width]
	}
	return s
}

// draw redraws the bar line; final leaves it and moves to a new line.
func (b *progressBar) draw(line string, final bool) {
	fmt.Fprintf(b.term, "\r%s\x1b[K", line)
	b.drawn = !final
	if final {
		fmt.Fprint(b.term, "\n")
	}
}

// divert receives the emitter's human lines while the bar shows: warnings
// are kept for the summary, other lines are printed above the bar.
func (b *progressBar) divert(level, line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if level == events.Warn && !b.finished {
		b.warnings = append(b.warnings, strings.TrimSuffix(line, "\n"))
		return
	}
	if b.drawn {
		fmt.Fprint(b.term, "\r\x1b[K")
	}
	w := b.stdout
	if level != events.Info {
		w = b.term
	}
	fmt.Fprint(w, line)
	if b.drawn {
		fmt.Fprintf(b.term, "\r%s\x1b[K", b.line())
	}
}

// finish ends the display when the job has ended with err: the last phase
// lines (marked stopped unless the job completed), then the warnings
// collected while it showed. It is safe on a nil bar and idempotent.
func (b *progressBar) finish(err error) {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.finished {
		b.mu.Unlock()
		return
	}
	b.finished = true
	b.mu.Unlock()
	close(b.stop)
	<-b.stopped
	b.restore()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance()
	if b.phase == phaseEmbed && err == nil {
		b.draw(b.line(), true)
		b.phase = phaseDone
	}
	if b.phase != phaseDone {
		b.draw(fit(b.line()+" (stopped)", b.width()-1), true)
	}
	switch len(b.warnings) {
	case 0:
		return
	case 1:
		fmt.Fprintln(b.term, "1 warning:")
	default:
		fmt.Fprintf(b.term, "%d warnings:\n", len(b.warnings))
	}
	for i, w := range b.warnings {
		if i == maxWarningsShown {
			fmt.Fprintf(b.term, "… and %d more (`--json` shows every one as an event)\n", len(b.warnings)-i)
			break
		}
		fmt.Fprintln(b.term, w)
	}
}
