package mcphttp

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/ratelimit"
)

// guard applies the Host and Origin checks, the rate limit and bearer auth
// in front of next.
func guard(o Options, next http.Handler) http.Handler {
	token := []byte(o.Token)
	lim := ratelimit.New(o.RPS, o.Burst)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, o.AllowedHosts) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Host "+r.Host+" is not allowed (DNS-rebinding protection); add it to security.allowed_hosts")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, r.Host, o.AllowedOrigins) {
			httpError(w, http.StatusForbidden, errcode.ForbiddenOrigin, "Origin "+origin+" is not allowed (security.allowed_origins)")
			return
		}
		if ok, wait := lim.Allow(clientAddr(r)); !ok {
			e := ratelimit.Exceeded("request", wait)
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

// IsLoopback reports whether a listen host is a loopback address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
