package cli

import (
	"context"
	"os"
	"runtime/debug"
	"time"
)

// indexMemoryLimit is the Go runtime's soft memory limit in a process
// that indexes. Indexing allocates briskly (file bytes, chunk text,
// tokens, vectors) while keeping little (bounded batches: ~100-200 MB
// live on the Linux kernel source); with only the default pacing the heap
// may grow to twice the live set and, on a loaded machine whose GC
// workers get little CPU, well beyond. Under the limit the collector
// runs as the process nears it. A larger live set still works: past
// the limit the runtime bounds the collector's CPU share instead.
const indexMemoryLimit = 512 << 20

// limitIndexMemory applies indexMemoryLimit unless GOMEMLIMIT sets one.
func limitIndexMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(indexMemoryLimit)
	}
}

// serverGCPercent is the garbage collector's target in a serving process
// (serve; up once its first index run is over), unless GOGC sets one. A
// search allocates ~1 MB that dies with the call (candidates, snippets,
// the encoded result) over a live heap of a few tens of MB (~95 MB on the
// Linux kernel source), so the collector's work is per cycle, not per
// byte: at the default 100 it took ~8% of the CPU of 8 searching clients;
// at 400 it runs a quarter as often (Go tree, 8 clients: 4.01-4.10 ms of
// server CPU per call against 4.38-4.65 at 200). The heap may grow to five
// times its live size while clients search; trimWhenIdle gives that back
// once they stop. Indexing keeps the default: its heap would grow with
// the percent (`dir2mcp index` of the Go tree peaked at 435 MB at 200
// against ~350 MB at 100); in up, indexMemoryLimit (or GOMEMLIMIT) bounds
// the heap of later runs whatever the percent.
const serverGCPercent = 400

// paceServerGC applies serverGCPercent unless GOGC sets a target.
func paceServerGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// idleTrim is how long a server goes without a tool call before it gives
// the calls' garbage back to the OS.
const idleTrim = 30 * time.Second

// trimWhenIdle calls trim once whenever calls (the server's tool calls
// begun so far) has moved and then stayed the same for a whole tick of
// every, until ctx ends. A server collects only as it allocates: after a
// burst of searches its heap stays at the size the collector let it grow
// to, which an idle server would otherwise keep resident.
func trimWhenIdle(ctx context.Context, every time.Duration, calls func() int64, trim func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	n := calls()
	idle := idleCalls{last: n, trimmed: n}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if idle.tick(calls()) {
				trim()
			}
		}
	}
}

// idleCalls follows a call count from tick to tick.
type idleCalls struct{ last, trimmed int64 }

// tick takes the count n at a tick and reports whether the calls have
// stopped since the last trim: n moved since then, but not since the tick
// before.
func (c *idleCalls) tick(n int64) bool {
	stopped := n == c.last && n != c.trimmed
	if stopped {
		c.trimmed = n
	}
	c.last = n
	return stopped
}
