package cli

import (
	"context"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models/embedders"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/dir2mcp/dir2mcp/lib/streamstage"
	ucli "github.com/urfave/cli/v3"
)

// The NATS flags of the stage commands (docs/scaling.md). Credentials and
// TLS files come from NATS_CREDS, NATS_USER/NATS_PASSWORD, NATS_TOKEN,
// NATS_TLS_CA, NATS_TLS_CERT/NATS_TLS_KEY, never from a flag.
func fromFlag(usage string) ucli.Flag {
	return &ucli.StringFlag{Name: "from", Usage: usage + " (nats://host:4222/subject)"}
}

func toFlag(usage string) ucli.Flag {
	return &ucli.StringFlag{Name: "to", Usage: usage + " (nats://host:4222/subject)"}
}

// workerFlags are the flags of an extract or embed worker on a stream.
func workerFlags(stage string) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "consumer", Value: "dir2mcp-" + stage,
			Usage: "with --from nats://: durable consumer name; workers with the same name share the records"},
		&ucli.DurationFlag{Name: "ack-wait", Value: 30 * time.Second,
			Usage: "with --from nats://: a record not acknowledged within this time is redelivered to another worker"},
		&ucli.BoolFlag{Name: "exit-when-idle",
			Usage: "with --from nats://: exit once the consumer has nothing pending or unacknowledged (batch jobs)"},
	}
}

// dial parses a --from/--to value and connects.
func dial(flag, v, name string) (*stream.Conn, stream.Endpoint, error) {
	ep, err := stream.Parse(flag, v)
	if err != nil {
		return nil, ep, err
	}
	c, err := stream.Connect(ep, name)
	return c, ep, err
}

// work is the shared-consumer settings of a worker command.
func work(cmd *ucli.Command, c *stream.Conn, subject string) stream.Work {
	return stream.Work{Conn: c, Subject: subject, Durable: cmd.String("consumer"),
		AckWait: cmd.Duration("ack-wait"), IdleExit: cmd.Bool("exit-when-idle")}
}

// scanToStream publishes scan's documents (with their content) on --to.
func scanToStream(ctx context.Context, e *env, cmd *ucli.Command, scanAll func(emit func(record.Document) error) error) error {
	c, ep, err := dial("--to", cmd.String("to"), "dir2mcp-scan")
	if err != nil {
		return err
	}
	defer c.Close()
	content := cmd.String("content")
	if content != "object" && content != "path" {
		return errcode.FieldError(errcode.ConfigInvalid, "--content", "--content must be object or path; got %q", content)
	}
	p := &streamstage.DocPublisher{Conn: c, Subject: ep.Subject, Shared: content == "path"}
	if err := p.Open(ctx); err != nil {
		return err
	}
	if err := scanAll(func(d record.Document) error { return p.Publish(ctx, d) }); err != nil {
		return err
	}
	return p.Flush(ctx)
}

// extractStream runs an extract worker: --from documents, --to chunks.
func extractStream(ctx context.Context, e *env, cmd *ucli.Command) error {
	if cmd.String("to") == "" {
		return errcode.FieldError(errcode.ConfigInvalid, "--to", "extract --from nats:// needs --to nats://host:4222/<chunks subject>")
	}
	in, inEp, err := dial("--from", cmd.String("from"), "dir2mcp-extract")
	if err != nil {
		return err
	}
	defer in.Close()
	outEp, err := stream.Parse("--to", cmd.String("to"))
	if err != nil {
		return err
	}
	if !sameServers(inEp, outEp) {
		return errcode.FieldError(errcode.ConfigInvalid, "--to", "--from and --to must name the same NATS servers")
	}
	media, err := e.media()
	if err != nil {
		return err
	}
	x := &streamstage.Extract{Work: work(cmd, in, inEp.Subject), Out: outEp.Subject, Events: e.ev,
		Extractor: &indexer.Extractor{Config: e.cfg, Events: e.ev, Media: media, Force: cmd.Bool("force")}}
	return x.Run(ctx)
}

// embedStream runs an embed worker: --from chunks, --to vectors (default
// <chunks subject>.vectors, where a replica reads them).
func embedStream(ctx context.Context, e *env, cmd *ucli.Command) error {
	in, inEp, err := dial("--from", cmd.String("from"), "dir2mcp-embed")
	if err != nil {
		return err
	}
	defer in.Close()
	out := streamstage.VectorSubject(inEp.Subject)
	if v := cmd.String("to"); v != "" {
		outEp, err := stream.Parse("--to", v)
		if err != nil {
			return err
		}
		if !sameServers(inEp, outEp) {
			return errcode.FieldError(errcode.ConfigInvalid, "--to", "--from and --to must name the same NATS servers")
		}
		out = outEp.Subject
	}
	embs, err := embedders.Open(e.cfg)
	if err != nil {
		return err
	}
	w := &streamstage.Embed{Work: work(cmd, in, inEp.Subject), Out: out, Embedders: embs, Events: e.ev}
	w.Work.Batch = e.cfg.Embed.BatchSize
	return w.Run(ctx)
}

func sameServers(a, b stream.Endpoint) bool {
	if len(a.Servers) != len(b.Servers) {
		return false
	}
	for i := range a.Servers {
		if a.Servers[i] != b.Servers[i] {
			return false
		}
	}
	return true
}

// startReplica makes serve a replica: it takes the writer locks of its
// state dir and applies the records of --from in the background. Errors
// that stop it arrive on errs; stop ends it and releases the locks.
// changed is called before the replica reports itself caught up after
// applying records (Replica.Changed).
func startReplica(ctx context.Context, e *env, cmd *ucli.Command, st *store.Store, errs chan<- error, changed func()) (stop func(), err error) {
	release, err := indexer.Lock(e.dir)
	if err != nil {
		return nil, err
	}
	c, ep, err := dial("--from", cmd.String("from"), "dir2mcp-serve")
	if err != nil {
		release()
		return nil, err
	}
	embs, err := embedders.Open(e.cfg)
	if err != nil {
		c.Close()
		release()
		return nil, err
	}
	r := &streamstage.Replica{Conn: c, Subject: ep.Subject, Store: st, Dir: e.dir, Embedders: embs, Events: e.ev,
		Extractor: &indexer.Extractor{Config: e.cfg, Events: e.ev}, Changed: changed}
	if err := r.Open(ctx); err != nil {
		c.Close()
		release()
		return nil, err
	}
	e.replica = func() any { return r.Status() }
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := r.Run(rctx); err != nil {
			errs <- err
		}
	}()
	return func() { cancel(); <-done; c.Close(); release() }, nil
}

// health is the /health addition of a serve replica: its position and lag.
func (e *env) health() func() map[string]any {
	if e.replica == nil {
		return nil
	}
	return func() map[string]any { return map[string]any{"replica": e.replica()} }
}
