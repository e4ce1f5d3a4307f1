package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/indexer"
	ucli "github.com/urfave/cli/v3"
)

// ExitDrift is the exit code of `dir2mcp diff` when files changed.
const ExitDrift = 1

func diffCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "diff",
		Usage: "list files added, modified and deleted since the last index run; exit 1 when there are any (for CI)",
		Description: "Scans the root with the index's rules (ignores, path excludes, secret patterns, size caps) and " +
			"compares it with the index without changing it: a file whose size and mtime are unchanged counts as " +
			"unchanged, otherwise its content hash decides. Exit 0: no drift, 1: drift, other codes: errors.",
		Action: runDiff,
	}
}

func runDiff(ctx context.Context, cmd *ucli.Command) error {
	e, st, err := setupReader(ctx, cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	d, err := indexer.Diff(ctx, e.cfg, indexer.ScanInput{Root: e.root.Dir(), Dir: e.dir, Store: st})
	if err != nil {
		return err
	}
	if e.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"added": d.Added, "modified": d.Modified, "deleted": d.Deleted,
			"counts": map[string]int{"added": len(d.Added), "modified": len(d.Modified), "deleted": len(d.Deleted)}}); err != nil {
			return err
		}
	} else {
		w := e.stdout
		for _, l := range []struct {
			mark  string
			files []indexer.DriftFile
		}{{"A", d.Added}, {"M", d.Modified}, {"D", d.Deleted}} {
			for _, f := range l.files {
				line := l.mark + "  " + f.RelPath
				if f.Code != "" && l.mark != "D" {
					line += "  (" + f.Status + ": " + f.Code + ")"
				}
				fmt.Fprintln(w, line)
			}
		}
		if !cmd.Bool("quiet") {
			fmt.Fprintf(e.stderr, "%d added, %d modified, %d deleted since the last index run\n", len(d.Added), len(d.Modified), len(d.Deleted))
		}
	}
	if d.Total() > 0 {
		return ucli.Exit("", ExitDrift)
	}
	return nil
}
