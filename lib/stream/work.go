package stream

import (
	"context"
	"errors"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/nats-io/nats.go/jetstream"
)

// Work is a share of a durable pull consumer: any number of processes
// running Work with the same Durable on the same stream and subject split
// the records between them (work-queue semantics). A record is acknowledged
// only after Handle returned nil for it, which Handle does only once its
// outputs are published and acknowledged; a worker that dies holding records
// loses nothing: the server redelivers them after AckWait.
type Work struct {
	Conn    *Conn
	Stream  string
	Subject string // the records read; dead letters go to Subject+".dead"
	Durable string
	// AckWait is how long the server waits for an ack before redelivering.
	AckWait time.Duration
	// Batch is the most records handed to Handle at once.
	Batch int
	// Handle processes a batch and returns one error per message, in order:
	// nil (done: acked), an error of code RECORD_INVALID (the record is
	// parked on the dead-letter subject and terminated), or any other error
	// (transient: redelivered after a delay).
	Handle func(ctx context.Context, msgs []jetstream.Msg) []error
	// Parked is told about each record sent to the dead-letter subject.
	Parked func(seq uint64, err error)
	// IdleExit returns once the consumer has nothing pending and nothing
	// unacknowledged (for batch jobs and tests); otherwise Run waits for
	// new records until ctx ends.
	IdleExit bool
}

// retryDelay is how long a record that failed transiently waits.
const retryDelay = 2 * time.Second

// Consumer creates (or updates) the shared durable consumer and returns it.
func (w *Work) Consumer(ctx context.Context) (jetstream.Consumer, error) {
	var cons jetstream.Consumer
	err := retry(ctx, func() (err error) {
		cons, err = w.Conn.JS.CreateOrUpdateConsumer(ctx, w.Stream, jetstream.ConsumerConfig{
			Durable:       w.Durable,
			AckPolicy:     jetstream.AckExplicitPolicy,
			AckWait:       w.AckWait,
			FilterSubject: w.Subject,
			MaxAckPending: 4096,
			DeliverPolicy: jetstream.DeliverAllPolicy,
		})
		return err
	})
	if err != nil {
		return nil, errcode.Wrap(errcode.StreamUnavailable, err, "nats: consumer %s on %s: %v", w.Durable, w.Stream, err)
	}
	return cons, nil
}

// Run fetches and handles records until ctx ends (or, with IdleExit, until
// the consumer is drained). It returns nil when ctx ends.
func (w *Work) Run(ctx context.Context) error {
	cons, err := w.Consumer(ctx)
	if err != nil {
		return err
	}
	batch := max(w.Batch, 1)
	for ctx.Err() == nil {
		msgs, err := w.fetch(ctx, cons, batch)
		if err != nil && ctx.Err() == nil {
			// A lost server or leader election: the client reconnects.
			sleep(ctx, 250*time.Millisecond)
			continue
		}
		if len(msgs) == 0 {
			if w.IdleExit && w.drained(ctx, cons) {
				return nil
			}
			continue
		}
		w.handle(ctx, msgs)
	}
	return nil
}

func (w *Work) fetch(ctx context.Context, cons jetstream.Consumer, n int) ([]jetstream.Msg, error) {
	b, err := cons.Fetch(n, jetstream.FetchMaxWait(time.Second))
	if err != nil {
		return nil, err
	}
	var msgs []jetstream.Msg
	for m := range b.Messages() {
		msgs = append(msgs, m)
	}
	if err := b.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && len(msgs) == 0 {
		return nil, err
	}
	return msgs, nil
}

func (w *Work) drained(ctx context.Context, cons jetstream.Consumer) bool {
	info, err := cons.Info(ctx)
	return err == nil && info.NumPending == 0 && info.NumAckPending == 0
}

// handle runs Handle on a batch, telling the server the records are in
// progress while it works, then settles each record.
func (w *Work) handle(ctx context.Context, msgs []jetstream.Msg) {
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(max(w.AckWait/3, 100*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				for _, m := range msgs {
					_ = m.InProgress()
				}
			}
		}
	}()
	errs := w.Handle(ctx, msgs)
	close(stop)
	for i, m := range msgs {
		var err error
		if i < len(errs) {
			err = errs[i]
		}
		switch {
		case err == nil:
			_ = m.DoubleAck(ctx)
		case errcode.Of(err) == errcode.RecordInvalid:
			w.park(ctx, m, err)
		default:
			_ = m.NakWithDelay(retryDelay)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
