package stream

import (
	"context"
	"fmt"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Headers of a parked (dead-letter) message; its body is the original.
const (
	HdrErrorCode = "Dir2mcp-Error-Code"
	HdrError     = "Dir2mcp-Error"
	HdrStream    = "Dir2mcp-Stream"
	HdrStreamSeq = "Dir2mcp-Stream-Seq"
)

// DeadSubject is where records of subject that cannot be read are parked.
func DeadSubject(subject string) string { return subject + ".dead" }

// park copies m to the dead-letter subject with the error, then terminates
// it so it is never redelivered. If the copy cannot be stored the record
// is left unacknowledged (redelivered later) rather than dropped.
func (w *Work) park(ctx context.Context, m jetstream.Msg, cause error) {
	md, err := m.Metadata()
	if err != nil {
		_ = m.NakWithDelay(retryDelay)
		return
	}
	seq := md.Sequence.Stream
	e := errcode.As(cause)
	h := nats.Header{}
	h.Set(HdrErrorCode, string(e.Code))
	h.Set(HdrError, e.Message)
	h.Set(HdrStream, md.Stream)
	h.Set(HdrStreamSeq, strconv.FormatUint(seq, 10))
	dm := &nats.Msg{Subject: DeadSubject(w.Subject), Data: m.Data(), Header: h}
	if _, err := w.Conn.JS.PublishMsg(ctx, dm, jetstream.WithMsgID(fmt.Sprintf("dead:%s:%d", md.Stream, seq))); err != nil {
		_ = m.NakWithDelay(retryDelay)
		return
	}
	_ = m.Term() // the reason is in the dead letter's headers
	if w.Parked != nil {
		w.Parked(seq, cause)
	}
}
