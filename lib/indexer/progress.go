// Package indexer runs the pipeline stages against a state directory:
// scan (documents from the root), extract (documents → representations and
// chunks in the store) and embed (pending chunks → vector files). The stage
// binaries run one stage each over NDJSON; `dir2mcp up` runs all three in one
// process over channels of the same records.
package indexer

import (
	"sync/atomic"
)

// Progress holds live counters shared by the stages of one run.
type Progress struct {
	Scanned       atomic.Int64 // document records seen
	Indexed       atomic.Int64 // documents (re)extracted
	Unchanged     atomic.Int64 // documents skipped as unchanged
	Skipped       atomic.Int64 // documents skipped by policy (binary, size, secret, exclude, awaiting provider)
	Deleted       atomic.Int64 // documents tombstoned
	Errors        atomic.Int64 // per-document failures
	Reps          atomic.Int64 // representations created or updated
	ChunksAdded   atomic.Int64 // chunks created (pending embedding)
	ChunksKept    atomic.Int64 // chunks whose text and vector were reused
	ChunksRemoved atomic.Int64 // chunks tombstoned
	Embedded      atomic.Int64 // chunks embedded in this run
	EmbedErrors   atomic.Int64 // chunks whose embedding failed

	// Phase ends, for a progress display: Found counts the document
	// records the scan produced (Scanned counts those extract took);
	// ScanDone and ExtractDone are set when those stages have finished.
	Found                 atomic.Int64
	ScanDone, ExtractDone atomic.Bool
}

// Snapshot is a point-in-time copy of Progress.
type Snapshot struct {
	Scanned, Indexed, Unchanged, Skipped, Deleted, Errors int64
	Reps, ChunksAdded, ChunksKept, ChunksRemoved          int64
	Embedded, EmbedErrors                                 int64
}

// Snapshot copies the counters.
func (p *Progress) Snapshot() Snapshot {
	return Snapshot{
		Scanned: p.Scanned.Load(), Indexed: p.Indexed.Load(), Unchanged: p.Unchanged.Load(),
		Skipped: p.Skipped.Load(), Deleted: p.Deleted.Load(), Errors: p.Errors.Load(),
		Reps: p.Reps.Load(), ChunksAdded: p.ChunksAdded.Load(), ChunksKept: p.ChunksKept.Load(),
		ChunksRemoved: p.ChunksRemoved.Load(), Embedded: p.Embedded.Load(), EmbedErrors: p.EmbedErrors.Load(),
	}
}
