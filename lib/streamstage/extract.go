package streamstage

import (
	"context"

	"fmt"
	"github.com/dir2mcp/dir2mcp/lib/cache"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/nats-io/nats.go/jetstream"
)

// Extract is an extract worker: it takes document records from the shared
// consumer on In, extracts each (bytes from the content bucket, or the
// shared path), and publishes a representation record on RepSubject(Out)
// followed by the document's chunk records on Out. It writes no store: the
// replicas do (their chunk ids are their own, so chunk records here carry
// ids 0).
type Extract struct {
	Work      stream.Work // Conn, Subject, Durable, AckWait, IdleExit set by the caller
	Out       string
	Extractor *indexer.Extractor
	Events    *events.Emitter

	content *stream.Content
	stats   extractStats
}

type extractStats struct {
	docs, indexed, skipped, deleted, errors, chunks, parked atomic.Int64
}

// Run works until ctx ends (or the consumer is drained, with IdleExit).
func (x *Extract) Run(ctx context.Context) error {
	if err := wire(ctx, &x.Work, x.Out, x.handle, x.Events, &x.stats.parked); err != nil {
		return err
	}
	var err error
	if x.content, err = x.Work.Conn.Content(ctx, x.Work.Subject); err != nil {
		return err
	}
	x.Extractor.Read = func(d record.Document) ([]byte, error) { return x.read(ctx, d) }
	if x.Work.Batch == 0 {
		x.Work.Batch = 4 * runtime.GOMAXPROCS(0)
	}
	err = x.Work.Run(ctx)
	s := &x.stats
	x.Events.Emit(events.Info, record.EvScanProgress, map[string]any{
		"scanned": s.docs.Load(), "indexed": s.indexed.Load(), "skipped": s.skipped.Load(), "deleted": s.deleted.Load(),
		"errors": s.errors.Load(), "chunks_added": s.chunks.Load(), "parked": s.parked.Load(),
		"message": fmt.Sprintf("extract worker: %d documents, %d chunks published, %d errors, %d records parked",
			s.docs.Load(), s.chunks.Load(), s.errors.Load(), s.parked.Load()),
	})
	return err
}

// read returns a document's bytes from the content bucket, else from the
// shared path.
func (x *Extract) read(ctx context.Context, d record.Document) ([]byte, error) {
	if d.ContentHash != "" {
		b, err := x.content.Get(ctx, stream.ObjectName(d.ContentHash))
		if err == nil || errcode.Of(err) != errcode.FileNotFound {
			return b, err
		}
	}
	r, err := rootfs.Open(d.Root)
	if err != nil {
		return nil, errcode.New(errcode.FileNotFound, "%s: no content in the bucket and the root is not on this host", d.RelPath)
	}
	data, _, err := r.ReadFile(d.RelPath, 0)
	return data, err
}

// handle extracts a batch in parallel, publishes every output, and only
// then reports the records done.
func (x *Extract) handle(ctx context.Context, msgs []jetstream.Msg) []error {
	errs := make([]error, len(msgs))
	outs := make([][]stream.Out, len(msgs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, m := range msgs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i], errs[i] = x.one(ctx, m.Data())
		}()
	}
	wg.Wait()
	var all []stream.Out
	for i := range msgs {
		if errs[i] == nil {
			all = append(all, outs[i]...)
		}
	}
	if err := x.Work.Conn.Publish(ctx, all...); err != nil {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	return errs
}

// one extracts a document message into its output records.
func (x *Extract) one(ctx context.Context, body []byte) ([]stream.Out, error) {
	d := record.NewDocument()
	if err := record.Decode(body, record.TypeDocument, &d); err != nil {
		return nil, errcode.Wrap(errcode.RecordInvalid, err, "%v", err)
	}
	p, ok, err := x.Extractor.Prepare(ctx, d)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, ctx.Err()
	}
	if errcode.Code(p.Document.Code) == errcode.StreamUnavailable {
		return nil, errcode.New(errcode.StreamUnavailable, "%s", p.Document.Reason) // retried
	}
	if p.Action == "replace" && p.Document.ContentHash != "" && !p.Archive {
		if _, err := x.content.Info(ctx, stream.ObjectName(p.Document.ContentHash)); err == nil {
			p.Object = stream.ContentBucket(x.Work.Subject) + "/" + stream.ObjectName(p.Document.ContentHash)
		}
	}
	x.count(p)
	rep, err := x.fit(ctx, p)
	if err != nil {
		return nil, err
	}
	outs := []stream.Out{{Subject: RepSubject(x.Out), Kind: kindRep, Record: rep}}
	for _, c := range p.ChunkRecords() {
		outs = append(outs, stream.Out{Subject: x.Out, Kind: kindChunk, Record: c})
	}
	return outs, nil
}

func (x *Extract) count(p indexer.Prepared) {
	s := &x.stats
	s.docs.Add(1)
	switch {
	case p.Action == "tombstone":
		s.deleted.Add(1)
	case p.Document.Status == record.StatusError:
		s.errors.Add(1)
		x.Events.Emit(events.Warn, record.EvFileError, map[string]any{"rel_path": p.Document.RelPath, "code": p.Document.Code, "message": p.Document.Reason})
	case p.Document.Status == record.StatusSkipped:
		s.skipped.Add(1)
	case p.Action == "replace":
		s.indexed.Add(1)
	}
	for _, n := range p.Notes {
		s.errors.Add(1)
		x.Events.Emit(events.Warn, record.EvFileError, map[string]any{"rel_path": n.RelPath, "code": n.Code, "message": n.Message})
	}
	s.chunks.Add(int64(len(p.ChunkRecords())))
}

// wire ensures a worker's input and output streams and connects its
// handler and dead-letter events to w.
func wire(ctx context.Context, w *stream.Work, out string, handle func(context.Context, []jetstream.Msg) []error,
	ev *events.Emitter, parked *atomic.Int64) error {
	name, err := w.Conn.Ensure(ctx, w.Subject)
	if err != nil {
		return err
	}
	if _, err := w.Conn.Ensure(ctx, out); err != nil {
		return err
	}
	w.Stream, w.Handle, w.Parked = name, handle, parkedEvent(ev, w.Subject, parked)
	return nil
}

// parkedEvent reports a record parked on subject's dead-letter subject as
// an error event (record_parked) naming the code, the stream sequence and
// where the record now is.
func parkedEvent(ev *events.Emitter, subject string, n *atomic.Int64) func(uint64, error) {
	return func(seq uint64, err error) {
		n.Add(1)
		e := errcode.As(err)
		ev.Emit(events.Error, record.EvRecordParked, map[string]any{
			"code": string(e.Code), "message": e.Message, "subject": subject, "stream_seq": seq,
			"dead_letter_subject": stream.DeadSubject(subject),
		})
	}
}

// fit returns p, or when its record is larger than a message may be (a
// big document's chunk texts), a stub naming the full record, which is
// stored in the content bucket.
func (x *Extract) fit(ctx context.Context, p indexer.Prepared) (indexer.Prepared, error) {
	body, err := stream.Encode(p)
	if err != nil {
		return p, err
	}
	if int64(len(body)) <= x.Work.Conn.NC.MaxPayload()-messageSlack {
		return p, nil
	}
	name := "rep-" + stream.ObjectName(cache.ContentHash(body))
	if err := x.content.Put(ctx, name, body); err != nil {
		return p, err
	}
	return indexer.Prepared{Type: p.Type, V: p.V, Action: p.Action, Document: p.Document,
		Ref: stream.ContentBucket(x.Work.Subject) + "/" + name}, nil
}

// messageSlack leaves room for headers under the server's max payload.
const messageSlack = 16 << 10
