package cli

import (
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

func scanSummary(scanned, new, modified, unchanged, deleted, skipped, errs int) string {
	return fmt.Sprintf("scan: %d files: %d new, %d modified, %d unchanged, %d deleted, %d skipped, %d errors",
		scanned, new, modified, unchanged, deleted, skipped, errs)
}

func extractSummary(s indexer.Snapshot) string {
	return fmt.Sprintf("extract: %d documents: %d indexed, %d unchanged, %d skipped, %d deleted, %d errors; chunks +%d kept %d removed %d",
		s.Scanned, s.Indexed, s.Unchanged, s.Skipped, s.Deleted, s.Errors, s.ChunksAdded, s.ChunksKept, s.ChunksRemoved)
}

func embedSummary(s indexer.Snapshot, c store.Counts) string {
	return fmt.Sprintf("embed: %d chunks embedded (%d failed); index has %d chunks, %d embedded, %d pending",
		s.Embedded, s.EmbedErrors, c.Chunks, c.Embedded, c.Pending)
}
