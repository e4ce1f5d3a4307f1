package streamstage

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/nats-io/nats.go/jetstream"
)

// Embed is an embed worker: it takes chunk records from the shared consumer
// on In, embeds them (one provider call per index kind per batch) and
// publishes a vector record per chunk on Out. Like Extract it writes no
// store; the replicas attach the vectors to their chunks.
type Embed struct {
	Work      stream.Work // Conn, Subject, Durable, AckWait, Batch, IdleExit set by the caller
	Out       string
	Embedders map[string]embed.Embedder // by index kind
	Events    *events.Emitter

	embedded, failed, parked atomic.Int64
}

// Run works until ctx ends (or the consumer is drained, with IdleExit).
func (e *Embed) Run(ctx context.Context) error {
	if err := wire(ctx, &e.Work, e.Out, e.handle, e.Events, &e.parked); err != nil {
		return err
	}
	err := e.Work.Run(ctx)
	e.Events.Emit(events.Info, record.EvEmbedProgress, map[string]any{
		"embedded_this_run": e.embedded.Load(), "errors": e.failed.Load(), "parked": e.parked.Load(),
		"message": fmt.Sprintf("embed worker: %d chunks embedded, %d failed (retried), %d records parked",
			e.embedded.Load(), e.failed.Load(), e.parked.Load()),
	})
	return err
}

// Embedded is how many vectors this worker has published.
func (e *Embed) Embedded() int64 { return e.embedded.Load() }

func (e *Embed) handle(ctx context.Context, msgs []jetstream.Msg) []error {
	errs := make([]error, len(msgs))
	byKind := map[string][]int{}
	chunks := make([]record.Chunk, len(msgs))
	for i, m := range msgs {
		c := record.NewChunk()
		if err := record.Decode(m.Data(), record.TypeChunk, &c); err != nil {
			errs[i] = errcode.Wrap(errcode.RecordInvalid, err, "%v", err)
			continue
		}
		if e.Embedders[c.IndexKind] == nil {
			errs[i] = errcode.New(errcode.RecordInvalid, "chunk record has unknown index_kind %q", c.IndexKind)
			continue
		}
		chunks[i] = c
		byKind[c.IndexKind] = append(byKind[c.IndexKind], i)
	}
	var outs []stream.Out
	var done []int
	for kind, idx := range byKind {
		emb := e.Embedders[kind]
		inputs := make([]embed.Input, len(idx))
		for j, i := range idx {
			inputs[j] = indexer.EmbedInput(chunks[i])
		}
		vecs, err := emb.Embed(ctx, inputs)
		if err == nil && len(vecs) != len(inputs) {
			err = fmt.Errorf("embedder returned %d vectors for %d inputs", len(vecs), len(inputs))
		}
		if err != nil {
			e.failed.Add(int64(len(idx)))
			for _, i := range idx {
				errs[i] = errcode.Wrap(errcode.EmbedFailed, err, "embed: %v", err)
			}
			continue
		}
		for j, i := range idx {
			c := chunks[i]
			v := record.NewVector()
			v.Model, v.IndexKind, v.Key = emb.ID(), kind, indexer.VectorKey(inputs[j])
			v.RelPath, v.RepHash, v.Ordinal, v.TextHash, v.Vector = c.RelPath, c.RepHash, c.Ordinal, c.TextHash, vecs[j]
			outs = append(outs, stream.Out{Subject: e.Out, Kind: kindVector, Record: v,
				ID: kindVector + ":" + v.Model + ":" + v.Key})
		}
		done = append(done, idx...)
	}
	if err := e.Work.Conn.Publish(ctx, outs...); err != nil {
		for _, i := range done {
			errs[i] = err
		}
		return errs
	}
	e.embedded.Add(int64(len(done)))
	return errs
}
