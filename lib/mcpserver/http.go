package mcpserver

import (
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
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
	// SessionTimeout closes sessions idle this long (0 = never).
	SessionTimeout time.Duration
	// MaxBodyBytes bounds a request body (413 above it); 0 = SDK default.
	MaxBodyBytes int64
	Logger       *slog.Logger
}

// Handler returns the HTTP handler: GET /health without auth, and the MCP
// endpoint behind the Origin allowlist (403) and bearer auth (401).
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.Path == "" {
		o.Path = "/mcp"
	}
	srv := s.MCP()
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      o.SessionTimeout,
		MaxRequestBodyBytes: o.MaxBodyBytes,
		Logger:              o.Logger,
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "name": "dir2mcp", "version": Version})
	})
	mux.Handle(o.Path, guard(o, streamable))
	return mux
}

// guard applies the Origin allowlist and bearer auth in front of next.
func guard(o HTTPOptions, next http.Handler) http.Handler {
	token := []byte(o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, o.AllowedOrigins) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Origin "+origin+" is not allowed (security.allowed_origins)")
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
	writeJSON(w, status, map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error": map[string]any{
			"code":    -32001,
			"message": string(code) + ": " + msg,
			"data":    map[string]any{"code": string(code), "message": msg, "retryable": false},
		},
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
