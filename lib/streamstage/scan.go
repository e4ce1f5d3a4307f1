// Package streamstage runs the pipeline stages over NATS JetStream (package
// stream): scan publishing documents with their content, extract and embed
// workers sharing durable consumers, and a serve replica materializing the
// index from the streams (docs/scaling.md).
package streamstage

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/stream"
	"github.com/nats-io/nats.go"
)

// Kinds prefix the de-duplication IDs of each record type.
const (
	kindDocument = "document"
	kindRep      = "rep"
	kindChunk    = "chunk"
	kindVector   = "vector"
)

// RepSubject is where extract publishes representation records beside the
// chunk records of subject; VectorSubject is embed's default output.
func RepSubject(chunks string) string    { return chunks + ".reps" }
func VectorSubject(chunks string) string { return chunks + ".vectors" }

// publishBatch is how many documents scan sends before waiting for acks.
const publishBatch = 128

// DocPublisher is scan's output on a stream: each document record on
// Subject, the bytes of a document to extract in the content bucket (unless
// Shared: the workers read Root/RelPath on a shared file system).
type DocPublisher struct {
	Conn    *stream.Conn
	Subject string
	Shared  bool

	content *stream.Content
	roots   map[string]*rootfs.Root
	pending []stream.Out
}

// Open ensures the stream and the content bucket.
func (p *DocPublisher) Open(ctx context.Context) error {
	if _, err := p.Conn.Ensure(ctx, p.Subject); err != nil {
		return err
	}
	if !p.Shared {
		c, err := p.Conn.Content(ctx, p.Subject)
		if err != nil {
			return err
		}
		p.content = c
	}
	return nil
}

// Publish queues d (storing its content first) and sends a full batch.
func (p *DocPublisher) Publish(ctx context.Context, d record.Document) error {
	h := nats.Header{}
	if d.Status == record.StatusOK && (d.Change == record.ChangeNew || d.Change == record.ChangeModified) {
		if p.Shared {
			h.Set(stream.HdrContent, "path")
		} else if data, err := p.read(d); err == nil {
			// The bytes sent are the bytes named: a file rewritten since
			// scan hashed it is published as it is now.
			d.ContentHash, d.SizeBytes = cache.ContentHash(data), int64(len(data))
			if err := p.content.Put(ctx, d.ContentHash, data); err != nil {
				return err
			}
			h.Set(stream.HdrContent, "object")
			h.Set(stream.HdrObject, stream.ObjectName(d.ContentHash))
		}
		// A file gone since the walk is published without content; the
		// worker records it as deleted, as extract does locally.
	}
	p.pending = append(p.pending, stream.Out{Subject: p.Subject, Kind: kindDocument, Record: d, Header: h})
	if len(p.pending) >= publishBatch {
		return p.Flush(ctx)
	}
	return nil
}

// Flush sends queued documents and waits for their acknowledgements.
func (p *DocPublisher) Flush(ctx context.Context) error {
	err := p.Conn.Publish(ctx, p.pending...)
	p.pending = p.pending[:0]
	return err
}

func (p *DocPublisher) read(d record.Document) ([]byte, error) {
	r, ok := p.roots[d.Root]
	if !ok {
		var err error
		if r, err = rootfs.Open(d.Root); err != nil {
			return nil, err
		}
		if p.roots == nil {
			p.roots = map[string]*rootfs.Root{}
		}
		p.roots[d.Root] = r
	}
	data, _, err := r.ReadFile(d.RelPath, 0)
	return data, err
}
