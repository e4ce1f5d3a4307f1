package stream

import (
	"os"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Environment variables Connect reads. Credentials never come from argv.
const (
	EnvCreds    = "NATS_CREDS"    // path of a .creds file (JWT + nkey seed)
	EnvUser     = "NATS_USER"     // with EnvPassword
	EnvPassword = "NATS_PASSWORD" //
	EnvToken    = "NATS_TOKEN"    // a bearer token
	EnvTLSCA    = "NATS_TLS_CA"   // PEM file of the CA that signed the server
	EnvTLSCert  = "NATS_TLS_CERT" // client certificate (mutual TLS), with EnvTLSKey
	EnvTLSKey   = "NATS_TLS_KEY"
)

// AckTimeout is how long a publish waits for the stream's acknowledgement
// before it counts as failed (and is retried under its de-duplication ID).
// Without it a publish the server lost with a stopped node would wait
// forever, holding its input records in progress.
var AckTimeout = 10 * time.Second

// Conn is a NATS connection with its JetStream context.
type Conn struct {
	NC *nats.Conn
	JS jetstream.JetStream
}

// Connect dials ep's servers with credentials and TLS settings from the
// environment. name labels the client in the server's monitoring (the
// stage, e.g. "dir2mcp-extract"). It reconnects forever: a worker outlives
// a server restart or the loss of one cluster node.
func Connect(ep Endpoint, name string) (*Conn, error) {
	opts, err := envOptions(ep)
	if err != nil {
		return nil, err
	}
	opts = append(opts, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond),
		nats.Timeout(5*time.Second), nats.RetryOnFailedConnect(false))
	nc, err := nats.Connect(joinServers(ep.Servers), opts...)
	if err != nil {
		return nil, errcode.Wrap(errcode.StreamUnavailable, err, "nats: connect to %s: %v", ep, err)
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(AckTimeout))
	if err != nil {
		nc.Close()
		return nil, errcode.Wrap(errcode.StreamUnavailable, err, "nats: jetstream: %v", err)
	}
	return &Conn{NC: nc, JS: js}, nil
}

// Close drains nothing: callers ack or publish synchronously, so closing
// loses no acknowledged work.
func (c *Conn) Close() { c.NC.Close() }

func joinServers(s []string) string {
	out := s[0]
	for _, x := range s[1:] {
		out += "," + x
	}
	return out
}

// envOptions turns the NATS_* variables into connection options. A file
// named by a variable that does not exist is a configuration error.
func envOptions(ep Endpoint) ([]nats.Option, error) {
	var opts []nats.Option
	if p := os.Getenv(EnvCreds); p != "" {
		if _, err := os.Stat(p); err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, EnvCreds, "%s: %v", EnvCreds, err)
		}
		opts = append(opts, nats.UserCredentials(p))
	}
	if u := os.Getenv(EnvUser); u != "" {
		opts = append(opts, nats.UserInfo(u, os.Getenv(EnvPassword)))
	}
	if t := os.Getenv(EnvToken); t != "" {
		opts = append(opts, nats.Token(t))
	}
	ca, cert, key := os.Getenv(EnvTLSCA), os.Getenv(EnvTLSCert), os.Getenv(EnvTLSKey)
	if ca != "" {
		if _, err := os.Stat(ca); err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, EnvTLSCA, "%s: %v", EnvTLSCA, err)
		}
		opts = append(opts, nats.RootCAs(ca))
	}
	if (cert == "") != (key == "") {
		return nil, errcode.FieldError(errcode.ConfigInvalid, EnvTLSCert, "%s and %s must be set together", EnvTLSCert, EnvTLSKey)
	}
	if cert != "" {
		opts = append(opts, nats.ClientCert(cert, key))
	}
	if ep.TLS || ca != "" || cert != "" {
		opts = append(opts, nats.Secure())
	}
	return opts, nil
}
