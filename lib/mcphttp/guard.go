package mcphttp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/ratelimit"
	"github.com/dir2mcp/dir2mcp/lib/tokens"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// guard applies the Host and Origin checks, the rate limit and bearer auth
// in front of next. An accepted token's label and scope reach the MCP
// server as the request's auth.TokenInfo (mcpserver.Credential).
func guard(o Options, next http.Handler) http.Handler {
	lim := ratelimit.New(o.RPS, o.Burst)
	authed := withCredential(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, o.AllowedHosts) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Host "+r.Host+" is not allowed (DNS-rebinding protection); add it to security.allowed_hosts")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, o.AllowedOrigins) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Origin "+origin+" is not allowed (security.allowed_origins)")
			return
		}
		if ok, wait := allow(lim, o.LimitLoopback, clientAddr(r)); !ok {
			e := ratelimit.Exceeded("request", wait)
			w.Header().Set("Retry-After", strconv.FormatInt((e.RetryAfterMs+999)/1000, 10))
			writeError(w, http.StatusTooManyRequests, e)
			return
		}
		if o.Token == "" {
			next.ServeHTTP(w, r)
			return
		}
		cred, reason := authenticate(o, r)
		if cred == nil {
			refuseAuth(w, reason)
			return
		}
		authed.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), credentialKey{}, cred)))
	})
}

type credentialKey struct{}

// withCredential hands the credential guard resolved to the SDK as the
// request's auth.TokenInfo (the SDK's own middleware is the only way in).
func withCredential(next http.Handler) http.Handler {
	verify := func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := ctx.Value(credentialKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

// authenticate resolves the bearer token of r: the server's own token
// (label owner, full scope) or a scoped token of o.Tokens. It returns nil
// and why for a missing token ("") or an unknown, expired or revoked one;
// the refusal of a known token is audited.
func authenticate(o Options, r *http.Request) (*auth.TokenInfo, string) {
	const generic = "the bearer token is not valid for this server"
	got, ok := bearer(r.Header.Get("Authorization"))
	if !ok {
		return nil, ""
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) == 1 {
		return mcpserver.Credential(tokens.OwnerLabel, nil, time.Time{}), ""
	}
	if o.Tokens == nil {
		return nil, generic
	}
	now := time.Now()
	t, err := o.Tokens.Lookup(got, now)
	switch {
	case err == nil:
		scope := &corpus.Scope{Label: t.Label, Tools: t.Tools, PathPrefixes: t.Paths}
		return mcpserver.Credential(t.Label, scope, t.Expires), ""
	case errors.Is(err, tokens.ErrExpired), errors.Is(err, tokens.ErrRevoked):
		msg := fmt.Sprintf("the token %q expired at %s", t.Label, t.Expires.Format(time.RFC3339))
		if errors.Is(err, tokens.ErrRevoked) {
			msg = fmt.Sprintf("the token %q was revoked at %s", t.Label, t.Revoked.Format(time.RFC3339))
		}
		auditRefusal(o, r, t.Label, now)
		return nil, msg
	case errors.Is(err, tokens.ErrUnknown):
		return nil, generic
	}
	o.logger().Warn("scoped tokens are unusable", "err", err)
	return nil, generic
}

// auditRefusal records a request refused for a known label's token: the
// tool it called (or the method), never its arguments.
func auditRefusal(o Options, r *http.Request, label string, now time.Time) {
	if o.Audit == nil {
		return
	}
	rec := audit.Record{Time: now.UTC(), Transport: "http", Token: label, Session: r.Header.Get("Mcp-Session-Id"),
		Error: string(errcode.Unauthorized), Tool: "http"}
	if r.Body != nil {
		limit := o.MaxBodyBytes
		if limit <= 0 {
			limit = mcp.DefaultMaxRequestBodyBytes
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, limit))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &msg) == nil && msg.Method != "" {
			rec.Tool = msg.Method
			if msg.Method == "tools/call" && msg.Params.Name != "" {
				rec.Tool = msg.Params.Name
				if len(msg.Params.Arguments) > 0 {
					rec.ArgsSHA256 = audit.Digest(msg.Params.Arguments)
				}
			}
		}
	}
	o.Audit.Write(rec)
}

// clientAddr is the rate-limit key of a request: the peer's IP address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// allow applies the per-client limit to addr; a loopback client passes
// untouched unless limitLoopback.
func allow(lim *ratelimit.Limiter, limitLoopback bool, addr string) (bool, time.Duration) {
	if !limitLoopback && IsLoopback(addr) {
		return true, 0
	}
	return lim.Allow(addr)
}

// hostAllowed reports whether a Host header names this server in a way a
// DNS-rebinding page cannot forge: an IP literal, localhost, or a listed
// name. A rebinding attack needs a DNS name the attacker controls, which
// none of these are.
func hostAllowed(host string, allowed []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.Trim(name, "[]"), "."))
	if name == "" || net.ParseIP(name) != nil || name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "*" || a == name:
			return true
		case strings.HasPrefix(a, "*.") && strings.HasSuffix(name, a[1:]):
			return true
		}
	}
	return false
}

func bearer(h string) (string, bool) {
	const p = "bearer "
	if len(h) <= len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	return strings.TrimSpace(h[len(p):]), true
}

// originAllowed reports whether origin is in the allowlist or is the
// server's own origin (same host as the request).
func originAllowed(origin, host string, allowed []string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if u.Host == host {
		return true
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
		au, err := url.Parse(a)
		if err != nil || au.Port() != "" {
			continue
		}
		if strings.EqualFold(au.Scheme, u.Scheme) && strings.EqualFold(au.Hostname(), u.Hostname()) {
			return true
		}
	}
	return false
}

// IsLoopback reports whether a listen host is a loopback address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
