package stream

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
	"github.com/nats-io/nats.go"
)

// A publish whose acknowledgement never comes (the server that took it
// stopped) fails after AckTimeout and is sent again under the same
// de-duplication ID, instead of waiting forever; a publish nobody ever
// acknowledges ends with STREAM_UNAVAILABLE once RetryBudget is spent.
func TestPublishLostAckIsSentAgain(t *testing.T) {
	defer func(a, b time.Duration) { AckTimeout, RetryBudget = a, b }(AckTimeout, RetryBudget)
	AckTimeout, RetryBudget = 200*time.Millisecond, 2*time.Second
	c := streamtest.Start(t, 1)
	ep, err := Parse("--to", c.URL("lost.acks"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Connect(ep, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A responder in place of a stream: it swallows the first copy of each
	// message and acknowledges the second, noting the IDs it saw.
	var seen atomic.Int64
	ids := make(chan string, 16)
	sub, err := conn.NC.Subscribe("lost.acks", func(m *nats.Msg) {
		ids <- m.Header.Get(nats.MsgIdHdr)
		if seen.Add(1)%2 == 1 {
			return
		}
		m.Respond([]byte(`{"stream":"lost_acks","seq":1}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := conn.Publish(ctx, Out{Subject: "lost.acks", Kind: "chunk", Record: map[string]int{"n": 1}}); err != nil {
		t.Fatalf("publish with one lost ack: %v", err)
	}
	if first, second := <-ids, <-ids; first == "" || first != second {
		t.Fatalf("sent again under ID %q, first under %q: want the same ID", second, first)
	}
	sub.Unsubscribe()

	sub, err = conn.NC.Subscribe("lost.acks", func(*nats.Msg) {})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	start := time.Now()
	err = conn.Publish(ctx, Out{Subject: "lost.acks", Kind: "chunk", Record: map[string]int{"n": 2}})
	if errcode.Of(err) != errcode.StreamUnavailable || ctx.Err() != nil {
		t.Fatalf("publish nobody acknowledges: %v after %v, want STREAM_UNAVAILABLE within the retry budget", err, time.Since(start))
	}
}
