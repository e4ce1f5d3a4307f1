package mcpserver

import (
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/version"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the HTTP handler.
type HTTPOptions struct {
	// Path is the MCP endpoint (default /mcp).
	Path string
	// Token is the bearer token clients must send; empty disables auth.
	Token string
	// AllowedOrigins lists origins allowed to call the endpoint. An entry
	// without a port allows that scheme and host on any port.
	AllowedOrigins []string
	// AllowedHosts lists host names (besides IP literals and localhost)
	// the Host header may carry; "*" allows any, "*.example.com" a domain.
	// Other names are refused with 403 (DNS-rebinding protection).
	AllowedHosts []string
	// SessionTimeout expires sessions idle this long (0 = never).
	SessionTimeout time.Duration
	// SessionMaxLifetime expires sessions this old (0 = never).
	SessionMaxLifetime time.Duration
	// MaxSessions bounds open sessions (0 = DefaultMaxSessions); when full,
	// the least recently active idle session is evicted.
	MaxSessions int
	// MaxBodyBytes bounds a request body (413 above it); 0 = SDK default.
	MaxBodyBytes int64
	// RPS and Burst limit requests per client address (0 RPS = off);
	// excess requests get 429 with Retry-After.
	RPS   float64
	Burst int
	// Logger receives transport diagnostics (SDK warnings).
	Logger *slog.Logger
}

// HTTPHandler serves GET /health and the MCP endpoint. Close it to stop the
// session sweeper and end every open session.
type HTTPHandler struct {
	mux      *http.ServeMux
	sessions *sessionTable
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Close ends every open session and stops the sweeper.
func (h *HTTPHandler) Close() { h.sessions.close() }

// Sessions reports the number of open sessions.
func (h *HTTPHandler) Sessions() int { return h.sessions.Len() }

// Handler returns the HTTP handler: GET /health without auth, and the MCP
// endpoint behind the Host and Origin checks (403), the per-client rate
// limit (429) and bearer auth (401), with sessions expired per
// SessionTimeout/SessionMaxLifetime (404 + X-MCP-Session-Expired). With
// payments enabled, gated tool calls also speak the x402 HTTP transport
// (402 + PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE) after those
// checks; without, the chain is exactly the free one.
func (s *Server) Handler(o HTTPOptions) *HTTPHandler {
	if o.Path == "" {
		o.Path = "/mcp"
	}
	srv := s.MCP()
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              o.Logger,
		// guard checks the Host header itself (loopback and allowlisted
		// names; foreign names → 403), so security.allowed_hosts also works
		// behind a same-host reverse proxy.
		DisableLocalhostProtection: true,
	})
	var mcpHandler http.Handler = streamable
	var table *sessionTable
	if s.payments != nil {
		mcpHandler = paymentHTTP(s.payments, o.MaxBodyBytes, func(id string) bool { return table.sdkHas(id) }, streamable)
	}
	table = newSessionTable(mcpHandler, srv, o, s.logger())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "name": "dir2mcp", "version": version.Version})
	})
	mux.Handle(o.Path, guard(o, table))
	return &HTTPHandler{mux: mux, sessions: table}
}

// guard applies the Host and Origin checks, the rate limit and bearer auth
// in front of next.
func guard(o HTTPOptions, next http.Handler) http.Handler {
	token := []byte(o.Token)
	lim := newLimiter(o.RPS, o.Burst)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, o.AllowedHosts) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Host "+r.Host+" is not allowed (DNS-rebinding protection); add it to security.allowed_hosts")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, o.AllowedOrigins) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Origin "+origin+" is not allowed (security.allowed_origins)")
			return
		}
		if ok, wait := lim.allow(clientAddr(r)); !ok {
			e := rateLimited("request", wait)
			w.Header().Set("Retry-After", strconv.FormatInt((e.RetryAfterMs+999)/1000, 10))
			writeError(w, http.StatusTooManyRequests, e)
			return
		}
		if len(token) > 0 {
			got, ok := bearer(r.Header.Get("Authorization"))
			if !ok || subtle.ConstantTimeCompare([]byte(got), token) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="dir2mcp"`)
				httpError(w, http.StatusUnauthorized, errcode.Unauthorized, "missing or invalid bearer token (send Authorization: Bearer <token>; see connection.json for where it is stored)")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// clientAddr is the rate-limit key of a request: the peer's IP address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
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

// httpError writes a JSON-RPC style error body for transport-level refusals.
func httpError(w http.ResponseWriter, status int, code errcode.Code, msg string) {
	writeError(w, status, errcode.New(code, "%s", msg))
}

// writeError writes e as a JSON-RPC error body whose data carries the
// canonical {code, message, retryable[, retryAfterMs]}.
func writeError(w http.ResponseWriter, status int, e *errcode.Error) {
	data := map[string]any{"code": string(e.Code), "message": e.Message, "retryable": e.Retryable}
	if e.RetryAfterMs > 0 {
		data["retryAfterMs"] = e.RetryAfterMs
	}
	writeJSON(w, status, map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": -32001, "message": string(e.Code) + ": " + e.Message, "data": data},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// IsLoopback reports whether a listen host is a loopback address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
