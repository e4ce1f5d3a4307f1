package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
)

// A bar follows the phases in order, fits its width, never shows a lower
// percentage within a phase, prints other lines above itself and the
// warnings after its last line.
func TestProgressBarPhases(t *testing.T) {
	var term, stdout bytes.Buffer
	p := &indexer.Progress{}
	pending := int64(0)
	b := &progressBar{term: &term, stdout: &stdout, width: func() int { return 40 }, prog: p,
		pending: func() int64 { return pending }, restore: func() {},
		stop: make(chan struct{}), stopped: make(chan struct{})}
	close(b.stopped)
	step := func() string {
		b.advance()
		l := b.line()
		if len(l) > 39 {
			t.Errorf("line of %d columns at width 40: %q", len(l), l)
		}
		return l
	}
	p.Found.Store(10)
	p.Scanned.Store(4)
	if l := step(); !strings.HasPrefix(l, "scan") || !strings.Contains(l, "10 files found, 4 extracted") {
		t.Errorf("scan: %q", l)
	}
	p.ScanDone.Store(true)
	if l := step(); !strings.HasPrefix(l, "extract") || !strings.Contains(l, " 40%") {
		t.Errorf("extract: %q", l)
	}
	if !strings.Contains(term.String(), "\rscan     10 files found\x1b[K\n") {
		t.Errorf("scan's last line: %q", term.String())
	}
	p.Scanned.Store(3) // a counter read out of order must not move the bar back
	if l := step(); !strings.Contains(l, " 40%") {
		t.Errorf("extract went back: %q", l)
	}
	b.divert(events.Warn, "WARN: a.zip: broken\n")
	b.divert(events.Info, "Loaded index\n")
	if !strings.Contains(stdout.String(), "Loaded index") || strings.Contains(term.String()+stdout.String(), "a.zip") {
		t.Errorf("info line not printed or warning not held:\n%q\n%q", stdout.String(), term.String())
	}
	p.Scanned.Store(10)
	p.ExtractDone.Store(true)
	p.Embedded.Store(5)
	pending = 15
	if l := step(); !strings.HasPrefix(l, "embed") || !strings.Contains(l, " 25%") || !strings.Contains(l, "5/20") {
		t.Errorf("embed: %q", l)
	}
	if !strings.Contains(term.String(), "100%  10/10 files\x1b[K\n") {
		t.Errorf("extract's last line not left on its own line: %q", term.String())
	}
	p.Embedded.Store(20)
	b.finish(nil)
	out := term.String()
	if !strings.Contains(out, "100%  20/20 chunks\x1b[K\n1 warning:\nWARN: a.zip: broken\n") {
		t.Errorf("end of display: %q", out)
	}

	// A job that stops early says so.
	term.Reset()
	b = &progressBar{term: &term, stdout: &stdout, width: func() int { return 80 }, prog: &indexer.Progress{},
		pending: func() int64 { return 0 }, restore: func() {}, stop: make(chan struct{}), stopped: make(chan struct{})}
	close(b.stopped)
	b.finish(errors.New("interrupted"))
	if !strings.Contains(term.String(), "(stopped)\x1b[K\n") {
		t.Errorf("stopped job: %q", term.String())
	}
}
