package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	ucli "github.com/urfave/cli/v3"
)

func statusCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "status",
		Usage:  "show index state and indexing progress (works while `up` runs)",
		Action: runStatus,
		Flags: []ucli.Flag{&ucli.BoolFlag{Name: "excluded",
			Usage: "list only the files kept out of the index for security, all of them, each with the rule that excluded it"}},
	}
}

type statusOut struct {
	Root      string           `json:"root"`
	StateDir  string           `json:"state_dir"`
	Indexing  state.Indexing   `json:"indexing"`
	Models    state.Models     `json:"models"`
	Documents int64            `json:"documents"`
	ByStatus  map[string]int64 `json:"by_status"`
	ByDocType map[string]int64 `json:"by_doc_type"`
	Chunks    int64            `json:"chunks"`
	Embedded  int64            `json:"embedded"`
	Pending   int64            `json:"pending"`
	// Excluded are the files kept out of the index for security, each with
	// the rule that excluded it (a false positive is spotted here).
	Excluded   []corpus.Excluded `json:"excluded"`
	Connection *state.Connection `json:"connection,omitempty"`
}

// maxExcludedShown bounds the excluded files status prints (--json lists
// them all).
const maxExcludedShown = 20

func runStatus(ctx context.Context, cmd *ucli.Command) error {
	e, st, err := setupReader(ctx, cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := st.Counts(ctx)
	if err != nil {
		return err
	}
	out := statusOut{Root: e.root.Dir(), StateDir: e.dir.Path, Documents: c.Documents, ByStatus: c.ByStatus,
		ByDocType: c.ByDocType, Chunks: c.Chunks, Embedded: c.Embedded, Pending: c.Pending}
	if corpus, err := e.dir.ReadCorpus(); err == nil {
		out.Indexing, out.Models = corpus.Indexing.Live(), corpus.Models
	}
	if conn, err := e.dir.ReadConnection(); err == nil && state.ProcessAlive(conn.PID) {
		out.Connection = &conn
	}
	if out.Excluded, err = corpus.ExcludedDocs(ctx, st, corpus.HiddenCodes, nil, e.cfg.Security.SecretPatterns); err != nil {
		return err
	}
	if cmd.Bool("excluded") {
		return printExcluded(e, out.Excluded)
	}
	if e.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := e.stdout
	fmt.Fprintf(w, "Root:      %s\nIndex:     %s (%s)\n", out.Root, out.StateDir, store.FileName)
	activity := "idle"
	switch {
	case out.Indexing.Running:
		activity = "running (" + out.Indexing.Mode + ", " + out.Indexing.JobID + ")"
	case out.Indexing.Interrupted:
		activity = fmt.Sprintf("interrupted (%s stopped before it finished; %d chunks pending): `dir2mcp up` or `dir2mcp index` resumes it",
			out.Indexing.JobID, out.Pending)
	}
	fmt.Fprintf(w, "Indexing:  %s\n", activity)
	fmt.Fprintf(w, "Documents: %d  %s\n", out.Documents, store.FormatCounts(out.ByStatus))
	fmt.Fprintf(w, "Types:     %s\n", store.FormatCounts(out.ByDocType))
	fmt.Fprintf(w, "Chunks:    %d  embedded=%d pending=%d\n", out.Chunks, out.Embedded, out.Pending)
	if out.Models.EmbedText != "" {
		fmt.Fprintf(w, "Embedder:  text=%s code=%s\n", out.Models.EmbedText, out.Models.EmbedCode)
	}
	ix := out.Indexing
	if ix.JobID != "" {
		fmt.Fprintf(w, "Last job:  scanned=%d indexed=%d unchanged=%d skipped=%d deleted=%d errors=%d\n",
			ix.Scanned, ix.Indexed, ix.Unchanged, ix.Skipped, ix.Deleted, ix.Errors)
	}
	if n := len(out.Excluded); n > 0 {
		fmt.Fprintf(w, "Excluded:  %d file(s) kept out of the index for security (never served):\n", n)
		for i, x := range out.Excluded {
			if i == maxExcludedShown {
				fmt.Fprintf(w, "           … %d more (status --json lists them all)\n", n-i)
				break
			}
			rule := x.Rule
			if rule == "" {
				rule = x.Code
			}
			fmt.Fprintf(w, "           %s  (%s)\n", x.RelPath, rule)
		}
	}
	if out.Connection != nil {
		fmt.Fprintf(w, "Serving:   %s (pid %d)\n", out.Connection.URL, out.Connection.PID)
	}
	return nil
}

// printExcluded is `status --excluded`: every file kept out for security
// with its rule, one a line (--json: {"excluded": [...]}).
func printExcluded(e *env, files []corpus.Excluded) error {
	if e.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"excluded": files})
	}
	fmt.Fprintf(e.stdout, "%d file(s) kept out of the index for security (never served):\n", len(files))
	for _, x := range files {
		fmt.Fprintf(e.stdout, "%s  %s  %s\n", x.RelPath, x.Code, cmp.Or(x.Rule, x.Code))
	}
	return nil
}
