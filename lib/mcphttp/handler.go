// Package mcphttp serves a dir2mcp MCP server over Streamable HTTP: GET
// /health, and the MCP endpoint behind the Host and Origin checks
// (DNS-rebinding protection), a per-client rate limit, bearer auth and a
// request body limit, with session lifecycle (inactivity timeout, maximum
// lifetime, capacity eviction) around the SDK's transport, and the x402
// HTTP transport (402 + PAYMENT-REQUIRED, PAYMENT-SIGNATURE,
// PAYMENT-RESPONSE) for paid tool calls. The MCP server itself (tools,
// resources, the MCP-native payment flow) is lib/mcpserver's.
package mcphttp

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/tokens"
	"github.com/dir2mcp/dir2mcp/lib/version"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure the handler.
type Options struct {
	// Path is the MCP endpoint (default /mcp).
	Path string
	// Health adds fields to GET /health (a serve replica's lag); nil adds
	// none.
	Health func() map[string]any
	// Token is the server's own bearer token (full scope, label owner);
	// empty disables auth.
	Token string
	// Tokens, with Token set, also accepts the scoped tokens of the tokens
	// file (dir2mcp token add), each limited to its tools and paths; a
	// change to the file applies from the next request.
	Tokens *tokens.Registry
	// Audit records requests refused for an expired or revoked scoped
	// token (the MCP server audits the calls it serves); nil: none.
	Audit *audit.Log
	// AllowedOrigins lists origins allowed to call the endpoint. An entry
	// without a port allows that scheme and host on any port.
	AllowedOrigins []string
	// AllowedHosts lists host names (besides IP literals and localhost)
	// the Host header may carry; "*" allows any, "*.example.com" a domain.
	// Other names are refused with 403 (DNS-rebinding protection).
	AllowedHosts []string
	// SessionTimeout expires sessions idle this long (0 = never).
	SessionTimeout time.Duration
	// AbandonTimeout expires sessions idle this long that have no open
	// stream (clients that left without DELETE): 0 = DefaultAbandonTimeout,
	// never longer than SessionTimeout, off when SessionTimeout is 0.
	AbandonTimeout time.Duration
	// SessionMaxLifetime expires sessions this old (0 = never).
	SessionMaxLifetime time.Duration
	// MaxSessions bounds open sessions (0 = DefaultMaxSessions); when full,
	// the least recently active idle session is evicted.
	MaxSessions int
	// MaxBodyBytes bounds a request body (413 above it); 0 = SDK default.
	MaxBodyBytes int64
	// RPS and Burst limit requests per client address (0 RPS = off);
	// excess requests get 429 with Retry-After. Loopback clients are
	// exempt unless LimitLoopback.
	RPS           float64
	Burst         int
	LimitLoopback bool
	// Payments, when set (the gate mcpserver.Server.EnablePayments
	// installed), makes gated tool calls also speak the x402 HTTP
	// transport; nil leaves the chain exactly the free one.
	Payments *x402.Gate
	// Logger receives session lifecycle logs (expiry, eviction, client
	// DELETE); SDKLogger the SDK's transport diagnostics (warnings). Nil
	// discards.
	Logger, SDKLogger *slog.Logger
}

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// Handler serves GET /health and the MCP endpoint. Close it to stop the
// session sweeper and end every open session.
type Handler struct {
	mux      *http.ServeMux
	sessions *sessionTable
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Close ends every open session and stops the sweeper.
func (h *Handler) Close() { h.sessions.close() }

// Sessions reports the number of open sessions.
func (h *Handler) Sessions() int { return h.sessions.Len() }

// New returns the HTTP handler of srv: GET /health without auth, and the
// MCP endpoint behind the Host and Origin checks (403), the per-client rate
// limit (429) and bearer auth (401), with sessions expired per
// SessionTimeout/SessionMaxLifetime (404 + X-MCP-Session-Expired). With
// Payments set, gated tool calls also speak the x402 HTTP transport after
// those checks.
func New(srv *mcp.Server, o Options) *Handler {
	if o.Path == "" {
		o.Path = "/mcp"
	}
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              o.SDKLogger,
		// guard checks the Host header itself (loopback and allowlisted
		// names; foreign names → 403), so security.allowed_hosts also works
		// behind a same-host reverse proxy.
		DisableLocalhostProtection: true,
	})
	var mcpHandler http.Handler = streamable
	var table *sessionTable
	if o.Payments != nil {
		mcpHandler = paymentHTTP(o.Payments, o.MaxBodyBytes, func(id string) bool { return table.sdkHas(id) }, streamable)
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	table = newSessionTable(mcpHandler, srv, o, logger)
	srv.AddSendingMiddleware(table.skipUnreachable)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		body := map[string]any{"status": "ok", "name": "dir2mcp", "version": version.Version}
		if o.Health != nil {
			for k, v := range o.Health() {
				body[k] = v
			}
		}
		writeJSON(w, http.StatusOK, body)
	})
	mux.Handle(o.Path, guard(o, checkIDs(o.MaxBodyBytes, table)))
	return &Handler{mux: mux, sessions: table}
}
