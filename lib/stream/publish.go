package stream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Encode is a record as one message body: the JSON line record.Writer
// prints, without the newline.
func Encode(rec any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// MsgID is the de-duplication ID of a body: "<kind>:<sha256 hex>". The same
// record published twice (a redelivered input) is stored once.
func MsgID(kind string, body []byte) string {
	h := sha256.Sum256(body)
	return kind + ":" + hex.EncodeToString(h[:])
}

// Out is one record to publish.
type Out struct {
	Subject string
	Kind    string // de-duplication ID prefix, e.g. "chunk"
	Record  any
	// ID overrides the content-derived de-duplication ID when set.
	ID     string
	Header nats.Header
}

// Publish sends the records and returns once the stream has acknowledged
// every one (a duplicate counts as acknowledged: it is already stored).
// Each carries a Nats-Msg-Id derived from its content unless ID is set.
func (c *Conn) Publish(ctx context.Context, outs ...Out) error {
	return retry(ctx, func() error { return c.publish(ctx, outs) })
}

func (c *Conn) publish(ctx context.Context, outs []Out) error {
	futures := make([]jetstream.PubAckFuture, 0, len(outs))
	for _, o := range outs {
		body, err := Encode(o.Record)
		if err != nil {
			return err
		}
		id := o.ID
		if id == "" {
			id = MsgID(o.Kind, body)
		}
		m := &nats.Msg{Subject: o.Subject, Data: body, Header: nats.Header{}}
		for k, v := range o.Header {
			m.Header[k] = v
		}
		f, err := c.JS.PublishMsgAsync(m, jetstream.WithMsgID(id))
		if err != nil {
			return errcode.Wrap(errcode.StreamUnavailable, err, "nats: publish to %s: %v", o.Subject, err)
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return errcode.Wrap(errcode.StreamUnavailable, err, "nats: publish to %s: %v", f.Msg().Subject, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
