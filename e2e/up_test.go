package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func upArgs(dir string, extra ...string) []string {
	return append([]string{"up", "--dir", dir, "--json", "--non-interactive", "--listen", "127.0.0.1:0"}, extra...)
}

// TestUpSearchEditDelete is the acceptance path: `up` serves at once,
// search finds a known phrase with its line span, and an edit and a delete
// are reflected by the next search with only the edited file re-extracted.
func TestUpSearchEditDelete(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	writeFile(t, filepath.Join(dir, "ignored_by_git", "skip.txt"), "zebra crossing must not be indexed\n")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()

	c := newMCP(t, srv)
	c.initialize()
	var tools struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	json.Unmarshal(c.call("tools/list", map[string]any{}), &tools)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if len(tl.OutputSchema) == 0 {
			t.Errorf("%s has no outputSchema", tl.Name)
		}
	}
	for _, want := range []string{"dir2mcp.search", "dir2mcp.ask", "dir2mcp.open_file", "dir2mcp.list_files", "dir2mcp.stats"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s (got %v)", want, names)
		}
	}

	done := p.wait("index_complete", 60*time.Second)
	if n := done.Data["errors"].(float64); n != 0 {
		t.Errorf("index_complete errors=%v", n)
	}
	total := done.Data["scanned"].(float64)

	// The known phrase comes back with the right file and line span.
	res := c.search("quarterly ledger entries against the bank statement", nil)
	if len(res.Hits) == 0 || res.Hits[0].RelPath != "src/ledger/ledger.go" {
		t.Fatalf("top hit = %+v, want src/ledger/ledger.go", res.Hits)
	}
	h := res.Hits[0]
	if h.Span.Kind != "lines" || h.Span.StartLine > 20 || h.Span.EndLine < 20 {
		t.Errorf("span %+v should cover line 20 (the doc comment)", h.Span)
	}
	if !res.IndexingComplete {
		t.Error("indexing_complete=false after index_complete")
	}
	// A natural-language question reaches the code index too.
	res = c.search("how is the great circle distance between two coordinates computed?", nil)
	if len(res.Hits) == 0 || res.Hits[0].RelPath != "src/geo/distance.py" {
		t.Errorf("question top hit = %+v, want src/geo/distance.py", firstPath(res))
	}
	// Ignored, excluded and secret files are not indexed; script text is dropped from HTML.
	forbidden := []string{"ignored_by_git/skip.txt", "secrets/creds.txt", ".env", "build/output.txt"}
	for _, q := range []string{"zebra crossing", "AKIAIOSFODNN7EXAMPLE deploy credentials", "DATABASE_PASSWORD hunter2",
		"generated build artefact", "trackingScriptMarker"} {
		for _, hh := range c.search(q, nil).Hits {
			if slices.Contains(forbidden, hh.RelPath) || strings.Contains(hh.Snippet, "trackingScriptMarker") ||
				strings.Contains(hh.Snippet, "AKIAIOSFODNN7EXAMPLE") {
				t.Errorf("%q returned forbidden content: %s %q", q, hh.RelPath, hh.Snippet)
			}
		}
	}

	// Edit one file, delete another.
	writeFile(t, filepath.Join(dir, "notes", "todo.txt"), "Things to do this week\n- recalibrate the heliostat mirrors before the solstice\n")
	if err := os.Remove(filepath.Join(dir, "docs", "guide.md")); err != nil {
		t.Fatal(err)
	}
	done = p.wait("index_complete", 60*time.Second)
	if got := done.Data["indexed"].(float64); got != 1 {
		t.Errorf("second run indexed=%v, want 1 (only the edited file)", got)
	}
	if got := done.Data["deleted"].(float64); got != 1 {
		t.Errorf("second run deleted=%v, want 1", got)
	}
	if got, skipped := done.Data["unchanged"].(float64), done.Data["skipped"].(float64); got+skipped != total-2 || got == 0 {
		t.Errorf("second run unchanged=%v skipped=%v, want them to add up to %v (every other file untouched)", got, skipped, total-2)
	}
	if r := c.search("heliostat mirrors solstice", nil); len(r.Hits) == 0 || r.Hits[0].RelPath != "notes/todo.txt" {
		t.Errorf("edited text not found: %+v", firstPath(r))
	}
	for _, q := range []string{"spectrograph filters", "aurora borealis calibration procedure"} {
		for _, hh := range c.search(q, nil).Hits {
			if hh.RelPath == "notes/todo.txt" && strings.Contains(hh.Snippet, "spectrograph") || hh.RelPath == "docs/guide.md" {
				t.Errorf("%q still finds stale content in %s", q, hh.RelPath)
			}
		}
	}
	// The token never appears on stdout.
	if strings.Contains(p.lines.String(), srv.token) || strings.Contains(p.stderr.String(), srv.token) {
		t.Error("bearer token leaked into the output")
	}
}

func firstPath(r searchOut) string {
	if len(r.Hits) == 0 {
		return "(no hits)"
	}
	return r.Hits[0].RelPath
}
