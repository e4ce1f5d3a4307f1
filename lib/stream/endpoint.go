// Package stream carries the pipeline's NDJSON records over NATS JetStream:
// endpoints (nats://host:port/subject), connections whose credentials come
// from the environment, streams created on first use, publishing with
// de-duplication IDs, shared work-queue consumers with a dead-letter subject,
// document content in the object store, and a replica's ordered read.
//
// A message body is exactly one record as the stage binaries print it on
// stdout (without the trailing newline), so `nats sub` shows what `jq` shows.
package stream

import (
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Scheme prefixes of a stream endpoint; tls:// requires TLS.
const (
	schemeNATS = "nats://"
	schemeTLS  = "tls://"
)

// Endpoint is a parsed --from/--to value: the servers to dial and the
// subject the records travel on.
type Endpoint struct {
	Servers []string // "nats://host:port" (or tls://), at least one
	Subject string   // e.g. "d2m.docs"
	TLS     bool     // tls:// scheme
}

// IsURL reports whether v names a NATS endpoint rather than a local input.
func IsURL(v string) bool {
	return strings.HasPrefix(v, schemeNATS) || strings.HasPrefix(v, schemeTLS)
}

// Parse reads "nats://h1:4222[,h2:4222]/subject". Credentials in the URL are
// refused: a command line is visible to every user of the host, so they come
// from the environment (see Connect).
func Parse(flag, v string) (Endpoint, error) {
	scheme := schemeNATS
	if strings.HasPrefix(v, schemeTLS) {
		scheme = schemeTLS
	} else if !strings.HasPrefix(v, schemeNATS) {
		return Endpoint{}, errcode.FieldError(errcode.ConfigInvalid, flag, "%s: want nats://host:port/subject, got %q", flag, v)
	}
	rest := strings.TrimPrefix(v, scheme)
	hosts, subject, _ := strings.Cut(rest, "/")
	if strings.Contains(hosts, "@") {
		return Endpoint{}, errcode.FieldError(errcode.ConfigInvalid, flag,
			"%s: credentials are not accepted on the command line; set NATS_CREDS, NATS_USER/NATS_PASSWORD or NATS_TOKEN", flag)
	}
	if err := checkSubject(subject); err != nil {
		return Endpoint{}, errcode.FieldError(errcode.ConfigInvalid, flag, "%s: %v", flag, err)
	}
	ep := Endpoint{Subject: subject, TLS: scheme == schemeTLS}
	for _, h := range strings.Split(hosts, ",") {
		if h == "" {
			return Endpoint{}, errcode.FieldError(errcode.ConfigInvalid, flag, "%s: empty server address in %q", flag, v)
		}
		if !strings.Contains(h, ":") {
			h += ":4222"
		}
		ep.Servers = append(ep.Servers, scheme+h)
	}
	return ep, nil
}

// checkSubject accepts a literal subject: dot-separated tokens without
// wildcards or spaces.
func checkSubject(s string) error {
	if s == "" {
		return fmt.Errorf("the URL names no subject (nats://host:4222/d2m.docs)")
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" || strings.ContainsAny(tok, "*> \t/") {
			return fmt.Errorf("invalid subject %q: dot-separated tokens, no wildcards", s)
		}
	}
	return nil
}

// String is the endpoint as it was given (never with credentials).
func (e Endpoint) String() string {
	hosts := make([]string, len(e.Servers))
	for i, s := range e.Servers {
		hosts[i] = strings.TrimPrefix(strings.TrimPrefix(s, schemeNATS), schemeTLS)
	}
	scheme := schemeNATS
	if e.TLS {
		scheme = schemeTLS
	}
	return scheme + strings.Join(hosts, ",") + "/" + e.Subject
}
