package cli

import (
	"context"
	"github.com/dir2mcp/dir2mcp/lib/errcode"

	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
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
			"INDEX_LOCKED while another writer (a running `up`) holds the index. --force first moves the index " +
			"files into <state dir>/old-<time>/ and builds a new index, for an index this build cannot open " +
			"(INDEX_VERSION_MISMATCH, STORE_CORRUPT).",
		Flags: []ucli.Flag{&ucli.BoolFlag{Name: "force", Usage: "move the old index aside (into the state dir's old-<time>/) and build a new one"}},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Bool("force") {
				if err := reindexForce(cmd); err != nil {
					return err
				}
			}
			return runIndex(ctx, cmd, true)
		},
	}
}

func runIndex(ctx context.Context, cmd *ucli.Command, full bool) error {
	e, st, err := setupIndexer(ctx, cmd)
	if err != nil {
		return err
	}
	defer st.Close()
	embs, err := embedders.Open(e.cfg)
	if err != nil {
		return err
	}
	tr := &tracker{}
	if err := runJob(ctx, e, st, embs, tr, full, nil, nil, nil); err != nil {
		return err
	}
	// A run where every new chunk failed to embed (provider down, bad key)
	// leaves a keyword-only index: say so with a failing exit code.
	if s := tr.progress.Snapshot(); s.EmbedErrors > 0 && s.Embedded == 0 {
		return errcode.New(errcode.EmbedFailed, "all %d chunks of this run failed to embed (see the file_error events); keyword search works, vectors are missing — fix the embedder and run `dir2mcp index` again", s.EmbedErrors)
	}
	return nil
}
