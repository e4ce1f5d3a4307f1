package stream

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/nats-io/nats.go/jetstream"
)

// DedupWindow is how long a stream remembers Nats-Msg-Id values: a
// redelivered record re-published within it is stored once.
const DedupWindow = 30 * time.Minute

// StreamName is the name a missing stream for subject is created under:
// the subject with dots as underscores ("d2m.docs" → "d2m_docs").
func StreamName(subject string) string { return strings.ReplaceAll(subject, ".", "_") }

// Ensure returns the stream that stores subject, creating it when none does:
// file storage, limits retention (so workers and replicas read the same
// records), subjects subject and subject.> (the dead-letter and companion
// subjects), replicated on up to three servers of the cluster.
func (c *Conn) Ensure(ctx context.Context, subject string) (name string, err error) {
	err = retry(ctx, func() (err error) { name, err = c.ensure(ctx, subject); return err })
	return name, err
}

func (c *Conn) ensure(ctx context.Context, subject string) (string, error) {
	if name, err := c.JS.StreamNameBySubject(ctx, subject); err == nil {
		return name, nil
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return "", errcode.Wrap(errcode.StreamUnavailable, err, "nats: look up the stream of %s: %v", subject, err)
	}
	cfg := jetstream.StreamConfig{
		Name:        StreamName(subject),
		Subjects:    []string{subject, subject + ".>"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    c.replicas(),
		Duplicates:  DedupWindow,
		Description: "dir2mcp pipeline records",
	}
	if _, err := c.JS.CreateStream(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return "", errcode.Wrap(errcode.StreamUnavailable, err, "nats: create stream %s: %v", cfg.Name, err)
	}
	return cfg.Name, nil
}

// replicas is 3 on a cluster of three or more servers, else 1.
func (c *Conn) replicas() int {
	if len(c.NC.Servers()) >= 3 {
		return 3
	}
	return 1
}
