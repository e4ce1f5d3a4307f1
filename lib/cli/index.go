package cli

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/embed/catalog"
	ucli "github.com/urfave/cli/v3"
)

func indexCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "index",
		Usage: "index the directory incrementally once, without serving, and exit",
		Description: "Runs scan → extract → embed in one process like `up` does, then exits: for cron jobs and " +
			"scripts. Only new and modified files are extracted and only new chunk text is embedded.",
		Action: func(ctx context.Context, cmd *ucli.Command) error { return runIndex(ctx, cmd, false) },
	}
}

func reindexCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "reindex",
		Usage: "rebuild the whole index from scratch (full re-extract and re-embed)",
		Description: "Discards representations, chunks and vectors and indexes everything again. Fails with " +
			"INDEX_LOCKED while another writer (a running `up`) holds the index.",
		Action: func(ctx context.Context, cmd *ucli.Command) error { return runIndex(ctx, cmd, true) },
	}
}

func runIndex(ctx context.Context, cmd *ucli.Command, full bool) error {
	e, st, err := setupIndexer(ctx, cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	embs, err := catalog.Open(e.cfg)
	if err != nil {
		return err
	}
	return runJob(ctx, e, st, embs, &tracker{}, full, nil)
}
