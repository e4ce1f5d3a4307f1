package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
)

var diffParams = []param{
	str("path_prefix", "only files whose rel_path starts with this"),
	integer("limit", "most files listed per kind of change", 1, 5000).withDefault(200),
}

type diffResult struct {
	Added     []indexer.DriftFile `json:"added"`
	Modified  []indexer.DriftFile `json:"modified"`
	Deleted   []indexer.DriftFile `json:"deleted"`
	Counts    map[string]int      `json:"counts"`
	Truncated bool                `json:"truncated"`
}

var diffOutput = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "added": {"type": "array", "items": DRIFT},
    "modified": {"type": "array", "items": DRIFT},
    "deleted": {"type": "array", "items": DRIFT},
    "counts": {"type": "object", "additionalProperties": false,
      "properties": {"added": {"type": "integer"}, "modified": {"type": "integer"}, "deleted": {"type": "integer"}},
      "required": ["added", "modified", "deleted"]},
    "truncated": {"type": "boolean", "description": "a list was cut at limit; counts are complete"}
  },
  "required": ["added", "modified", "deleted", "counts", "truncated"]
}`

const driftSchema = `{
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "rel_path": {"type": "string"},
    "doc_type": {"type": "string"},
    "size_bytes": {"type": "integer"},
    "mtime_unix": {"type": "integer"},
    "status": {"type": "string", "description": "the scan's verdict now: ok, skipped or error"},
    "code": {"type": "string"},
    "reason": {"type": "string"}
  },
  "required": ["rel_path", "size_bytes"]
}`

// diff compares the files under the root with the index (what the next
// index run would add, re-extract or delete). Files outside the caller's
// scope, and files excluded for security, are not named.
func (s *Server) diff(ctx context.Context, a *args) (toolOut, error) {
	d, err := indexer.Diff(ctx, s.Config, indexer.ScanInput{Root: s.Root.Dir(), Dir: s.Dir, Store: s.Store})
	if err != nil {
		return toolOut{}, err
	}
	prefix, limit := strings.TrimPrefix(a.str("path_prefix"), "./"), a.integer("limit")
	res := diffResult{Counts: map[string]int{"added": 0, "modified": 0, "deleted": 0}}
	var files []string
	keep := func(kind string, in []indexer.DriftFile, known bool) []indexer.DriftFile {
		out := []indexer.DriftFile{}
		for _, f := range in {
			if !strings.HasPrefix(f.RelPath, prefix) || !corpus.Allowed(ctx, f.RelPath) || slices.Contains(corpus.HiddenCodes, f.Code) {
				continue
			}
			if known { // a deleted file the index had hidden stays unnamed
				if doc, ok, err := s.Store.Document(ctx, f.RelPath); err == nil && ok && slices.Contains(corpus.HiddenCodes, doc.ErrorCode) {
					continue
				}
			}
			res.Counts[kind]++
			if len(out) == limit {
				res.Truncated = true
				continue
			}
			out = append(out, f)
			files = append(files, f.RelPath)
		}
		return out
	}
	res.Added = keep("added", d.Added, false)
	res.Modified = keep("modified", d.Modified, true)
	res.Deleted = keep("deleted", d.Deleted, true)
	var b strings.Builder
	fmt.Fprintf(&b, "%d added, %d modified, %d deleted since the last index run", res.Counts["added"], res.Counts["modified"], res.Counts["deleted"])
	for _, l := range []struct {
		mark  string
		files []indexer.DriftFile
	}{{"A", res.Added}, {"M", res.Modified}, {"D", res.Deleted}} {
		for _, f := range l.files {
			fmt.Fprintf(&b, "\n%s  %s", l.mark, f.RelPath)
		}
	}
	if res.Truncated {
		fmt.Fprintf(&b, "\n… lists cut at limit=%d", limit)
	}
	return toolOut{out: res, summary: b.String(), files: files}, nil
}
