package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"sync/atomic"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	ucli "github.com/urfave/cli/v3"
)

// ScanCommand is `dir2mcp scan` / dir2mcp-scan.
func ScanCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "scan",
		Usage:     "walk the root and print one NDJSON document record per file",
		UsageText: "dir2mcp-scan [--dir DIR] [--state-dir DIR] [--rehash] > documents.ndjson",
		Description: "Change status (new/modified/unchanged/deleted) is computed against the state dir's index, " +
			"if one exists; nothing is written. See docs/pipeline.md for the record format.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "rehash", Usage: "read and hash every file (ignore the size+mtime shortcut)"},
			toFlag("publish the document records on a NATS JetStream subject instead of stdout"),
			&ucli.StringFlag{Name: "content", Value: "object",
				Usage: "with --to: object (file bytes in the JetStream object store) or path (workers read the shared root)"},
		},
		Action: runScan,
	}
}

func runScan(ctx context.Context, cmd *ucli.Command) error {
	e, err := setup(cmd, true)
	if err != nil {
		return err
	}
	var st *store.Store
	if s, err := e.openStore(ctx, readStore); err == nil {
		st = s
		defer st.Close()
	} else if errcode.Of(err) != errcode.IndexNotReady {
		return err
	}
	media, err := e.media()
	if err != nil {
		return err
	}
	changed, err := indexer.PolicyChanged(ctx, st, e.cfg, media)
	if err != nil {
		return err
	}
	var stats scan.Stats
	scanAll := func(emit func(record.Document) error) (err error) {
		stats, err = indexer.Scan(ctx, e.cfg, indexer.ScanInput{Root: e.root.Dir(), Dir: e.dir, Store: st,
			Rehash: cmd.Bool("rehash") || (st != nil && changed), Warn: indexer.WarnTo(e.ev)}, emit)
		return err
	}
	w := record.NewWriter(e.stdout)
	defer w.Flush()
	if cmd.String("to") != "" {
		err = scanToStream(ctx, e, cmd, scanAll)
	} else {
		err = scanAll(func(d record.Document) error { return w.Write(d) })
	}
	if err != nil {
		return err
	}
	e.ev.Emit(events.Info, record.EvScanProgress, map[string]any{
		"scanned": stats.Scanned, "new": stats.New, "modified": stats.Modified, "unchanged": stats.Unchanged,
		"deleted": stats.Deleted, "skipped": stats.Skipped, "errors": stats.Errors,
		"message": scanSummary(stats.Scanned, stats.New, stats.Modified, stats.Unchanged, stats.Deleted, stats.Skipped, stats.Errors),
	})
	return w.Flush()
}

// ExtractCommand is `dir2mcp extract` / dir2mcp-extract.
func ExtractCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "extract",
		Usage:     "read document records on stdin, store representations and chunks, print chunk records",
		UsageText: "dir2mcp-scan | dir2mcp-extract [--state-dir DIR] [--force] > chunks.ndjson",
		Description: "Takes the index lock (locks/index.lock). Prints a chunk record for every chunk it creates " +
			"(new text, pending embedding); unchanged chunks keep their vectors and are not printed.",
		Flags: append([]ucli.Flag{
			&ucli.BoolFlag{Name: "force", Usage: "rebuild representations of unchanged documents too"},
			fromFlag("work on the document records of a NATS JetStream subject, shared with other workers"),
			toFlag("with --from: publish representation and chunk records on this subject"),
		}, workerFlags("extract")...),
		Action: runExtract,
	}
}

func runExtract(ctx context.Context, cmd *ucli.Command) error {
	limitIndexMemory()
	e, err := setup(cmd, true)
	if err != nil {
		return err
	}
	if cmd.String("from") != "" {
		return extractStream(ctx, e, cmd)
	}
	if cmd.String("to") != "" {
		return errcode.FieldError(errcode.ConfigInvalid, "--to", "--to nats:// needs --from nats:// (a worker reads and writes streams)")
	}
	lock, err := e.dir.TryLock(state.IndexLock)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	st, err := e.openStore(ctx, createStore)
	if err != nil {
		return err
	}
	defer st.Close()
	media, err := e.media()
	if err != nil {
		return err
	}
	changed, err := indexer.PolicyChanged(ctx, st, e.cfg, media)
	if err != nil {
		return err
	}
	w := record.NewWriter(e.stdout)
	defer w.Flush()
	prog := &indexer.Progress{}
	x := &indexer.Extractor{Store: st, Config: e.cfg, Progress: prog, Events: e.ev, Media: media,
		Out: func(c record.Chunk) error { return w.Write(c) }, Force: cmd.Bool("force") || changed}
	r := record.NewReader(os.Stdin, record.TypeDocument)
	next := func() (record.Document, error) {
		d := record.NewDocument()
		return d, stdinErr(r.Next(&d))
	}
	if err := feed(ctx, next, x.Run); err != nil {
		return err
	}
	if err := st.SyncPostings(ctx); err != nil {
		return err
	}
	if err := indexer.SavePolicy(ctx, st, e.cfg, media); err != nil {
		return err
	}
	s := prog.Snapshot()
	e.ev.Emit(events.Info, record.EvScanProgress, map[string]any{
		"scanned": s.Scanned, "indexed": s.Indexed, "unchanged": s.Unchanged, "skipped": s.Skipped,
		"deleted": s.Deleted, "errors": s.Errors, "chunks_added": s.ChunksAdded, "chunks_kept": s.ChunksKept,
		"chunks_removed": s.ChunksRemoved,
		"message":        extractSummary(s),
	})
	return w.Flush()
}

// EmbedCommand is `dir2mcp embed` / dir2mcp-embed.
func EmbedCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "embed",
		Usage:     "embed pending chunks into the vector files",
		UsageText: "dir2mcp-embed [--state-dir DIR]            (pending chunks from the index)\n   dir2mcp-extract | dir2mcp-embed --input stdin   (chunk records from a pipe)",
		Description: "Takes the vectors lock (locks/vectors.lock). With --input auto (default) chunk records are read " +
			"from stdin when it is a pipe, otherwise every pending chunk in the index is embedded.",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "input", Value: "auto", Usage: "auto | stdin | store"},
			fromFlag("work on the chunk records of a NATS JetStream subject, shared with other workers"),
			toFlag("with --from: publish vector records here (default: <from subject>.vectors)"),
		}, workerFlags("embed")...),
		Action: runEmbed,
	}
}

func runEmbed(ctx context.Context, cmd *ucli.Command) error {
	limitIndexMemory()
	e, err := setup(cmd, true)
	if err != nil {
		return err
	}
	if cmd.String("from") != "" {
		return embedStream(ctx, e, cmd)
	}
	if cmd.String("to") != "" {
		return errcode.FieldError(errcode.ConfigInvalid, "--to", "--to nats:// needs --from nats:// (a worker reads and writes streams)")
	}
	input := cmd.String("input")
	switch input {
	case "auto":
		input = "store"
		if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			input = "stdin"
		}
	case "stdin", "store":
	default:
		return errcode.FieldError(errcode.ConfigInvalid, "--input", "--input must be auto, stdin or store; got %q", input)
	}
	lock, err := e.dir.TryLock(state.VectorsLock)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	var first *record.Chunk
	var rd *record.Reader
	if input == "stdin" {
		// In `scan | extract | embed` every stage starts at once: wait for
		// the first record, by which time extract has created the index.
		rd = record.NewReader(os.Stdin, record.TypeChunk)
		c := record.NewChunk()
		switch err := rd.Next(&c); {
		case errors.Is(err, io.EOF):
			e.ev.Emit(events.Info, record.EvEmbedProgress, map[string]any{"embedded_this_run": 0, "message": "embed: no chunk records on stdin"})
			return nil
		case err != nil:
			return stdinErr(err)
		}
		first = &c
	}
	st, err := e.openStore(ctx, writeStore)
	if err != nil {
		return err
	}
	defer st.Close()
	embs, err := embedders.Open(e.cfg)
	if err != nil {
		return err
	}
	prog := &indexer.Progress{}
	emb := &indexer.Embedding{Store: st, Dir: e.dir, Embedders: embs, Progress: prog, Events: e.ev,
		BatchSize: e.cfg.Embed.BatchSize, Concurrency: e.cfg.Embed.Concurrency}
	if input == "store" {
		err = emb.Run(ctx, nil)
	} else {
		sent := false
		next := func() (record.Chunk, error) {
			if !sent {
				sent = true
				return *first, nil
			}
			c := record.NewChunk()
			return c, stdinErr(rd.Next(&c))
		}
		err = feed(ctx, next, emb.RunRecords)
	}
	if err != nil {
		return err
	}
	c, _ := st.Counts(ctx)
	s := prog.Snapshot()
	e.ev.Emit(events.Info, record.EvEmbedProgress, map[string]any{
		"embedded_this_run": s.Embedded, "errors": s.EmbedErrors, "chunks_total": c.Chunks, "embedded_ok": c.Embedded,
		"pending": c.Pending, "message": embedSummary(s, c),
	})
	return nil
}

// ServeCommand is `dir2mcp serve` / dir2mcp-serve.
func ServeCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "serve",
		Usage: "serve an existing state dir over MCP: Streamable HTTP, or stdin/stdout with --stdio (no indexing)",
		Description: "Reads the index while other processes (dir2mcp-extract, dir2mcp-embed, cron jobs) write it; " +
			"new chunks and vector files are picked up without a restart.",
		Flags: append(serverFlags(),
			fromFlag("be a replica: build and follow this state dir's index from the chunk subject extract and embed publish on")),
		Action: runServe,
	}
}

func runServe(ctx context.Context, cmd *ucli.Command) error {
	paceServerGC()
	e, err := setupServer(cmd)
	if err != nil {
		return err
	}
	st, err := openIndex(ctx, e)
	if err != nil {
		return err
	}
	defer st.Close()
	// A server merges its keyword index's segments once idle.
	defer postings.Serving(e.dir.Path)()
	replicaErr := make(chan error, 1)
	var serving atomic.Pointer[service] // for the replica, once it serves
	replica := cmd.String("from") != ""
	if replica {
		stop, err := startReplica(ctx, e, cmd, st, replicaErr, func() {
			if s := serving.Load(); s != nil {
				s.refreshIndexes()
			}
		})
		if err != nil {
			return err
		}
		defer stop()
	}
	svc, err := startService(ctx, e, st, nil)
	if err != nil {
		return err
	}
	defer svc.shutdown()
	if replica {
		serving.Store(svc)
		svc.refreshIndexes() // what the replica applied while the service started
	}
	if err := svc.announce(""); err != nil {
		return err
	}
	svc.warm()
	svc.warmRefs()
	select {
	case <-ctx.Done():
		return nil
	case err := <-replicaErr:
		return err
	case err := <-svc.served:
		if err != nil {
			return errcode.Wrap(errcode.BindFailed, err, "server stopped: %v", err)
		}
		return nil
	}
}
