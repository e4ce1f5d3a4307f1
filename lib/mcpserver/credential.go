package mcpserver

import (
	"time"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scopeKey holds a request's *corpus.Scope in auth.TokenInfo.Extra.
const scopeKey = "dir2mcp/scope"

// Credential is what an HTTP transport (lib/mcphttp) attaches to a request
// made with a bearer token: its label (never the token) and its scope (nil
// = everything), and the expiry. The SDK hands it to every request of the
// session as req.Extra.TokenInfo, and refuses a session to a request made
// with another label (UserID), so a session cannot change hands.
func Credential(label string, scope *corpus.Scope, expires time.Time) *auth.TokenInfo {
	return &auth.TokenInfo{UserID: label, Expiration: expires, Extra: map[string]any{scopeKey: scope}}
}

// credentialOf returns the label and scope a request carries ("", nil for
// stdio and for HTTP without auth).
func credentialOf(req mcp.Request) (string, *corpus.Scope) {
	ex := req.GetExtra()
	if ex == nil || ex.TokenInfo == nil {
		return "", nil
	}
	s, _ := ex.TokenInfo.Extra[scopeKey].(*corpus.Scope)
	return ex.TokenInfo.UserID, s
}
