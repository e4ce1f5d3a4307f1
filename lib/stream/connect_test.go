package stream

import (
	"context"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/stream/streamtest"
	"github.com/nats-io/nats-server/v2/server"
)

// Credentials come from the environment: without them a server that wants
// a user refuses the connection (STREAM_UNAVAILABLE, the password never in
// the message); with NATS_USER/NATS_PASSWORD the stage connects and can
// create its stream.
func TestConnectWithEnvCredentials(t *testing.T) {
	const pass = "s3cret-pw-9137"
	c := streamtest.Start(t, 1, func(o *server.Options) { o.Username, o.Password = "d2m", pass })
	ep, err := Parse("--to", c.URL("d2m.docs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvUser, "")
	if _, err := Connect(ep, "test"); errcode.Of(err) != errcode.StreamUnavailable {
		t.Fatalf("no credentials: %v, want STREAM_UNAVAILABLE", err)
	}
	t.Setenv(EnvUser, "d2m")
	t.Setenv(EnvPassword, "wrong")
	if _, err := Connect(ep, "test"); err == nil || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("wrong password: %v", err)
	}
	t.Setenv(EnvPassword, pass)
	conn, err := Connect(ep, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if name, err := conn.Ensure(context.Background(), "d2m.docs"); err != nil || name != "d2m_docs" {
		t.Fatalf("ensure: %q %v", name, err)
	}
}
