package cli

import (
	"os"
	"runtime/debug"
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
// the encoded result) over a live heap of a few tens of MB, so at the
// default 100 the collector ran every few calls and took ~8% of the CPU
// of 8 searching clients; at 200 it runs half as often. Indexing keeps
// the default: its heap would grow with the percent (`dir2mcp index` of
// the Go tree peaked at 435 MB instead of ~350 MB); in up, indexMemoryLimit
// (or GOMEMLIMIT) bounds the heap of later runs whatever the percent.
const serverGCPercent = 200

// paceServerGC applies serverGCPercent unless GOGC sets a target.
func paceServerGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}
