package mcphttp

import (
	"net/http"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// tokenWhere tells a refused client where the token is (README: secret.token
// in the state directory, $DIR2MCP_AUTH_TOKEN or --auth file:PATH), without
// naming a path of the server's machine.
const tokenWhere = "send Authorization: Bearer <token>. The token is in the file secret.token of the server's " +
	"state directory (.dir2mcp/ in the served directory by default; connection.json beside it has the URL), " +
	"unless the server was started with $DIR2MCP_AUTH_TOKEN or --auth file:PATH; " +
	"`dir2mcp config client CLIENT --transport http` writes a client config that sends it"

// refuseAuth answers 401 per RFC 6750 §3: a request without a bearer token
// gets the challenge with the realm only (§3.1: no error code when the
// request lacked authentication); a token that is wrong, expired or revoked
// adds error="invalid_token" and why. The JSON body says where the token is.
func refuseAuth(w http.ResponseWriter, reason string) {
	challenge := `Bearer realm="dir2mcp"`
	msg := "this server requires a bearer token: " + tokenWhere
	if reason != "" {
		challenge += `, error="invalid_token", error_description="` + quotable(reason) + `"`
		msg = reason + ": " + tokenWhere
	}
	w.Header().Set("WWW-Authenticate", challenge)
	httpError(w, http.StatusUnauthorized, errcode.Unauthorized, msg)
}

// quotable keeps the characters RFC 6750 allows in error_description
// (printable ASCII but the double quote and the backslash): a double quote
// becomes a single one, anything else outside the set a question mark.
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\' || r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, s)
}
