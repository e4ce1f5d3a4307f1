package mcphttp

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/tokens"
)

// A 401 follows RFC 6750: without a token the challenge names the realm
// only; a wrong, expired or revoked token adds error="invalid_token" and a
// description; the body says where the token is, and no path of the
// server's machine or token value.
func TestUnauthorizedChallenge(t *testing.T) {
	state := t.TempDir()
	tokPath := filepath.Join(state, tokens.FileName)
	now := time.Now()
	expired, _, err := tokens.Add(tokPath, "old", nil, nil, now.Add(-time.Hour), now.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tokens.NewRegistry(tokPath, filepath.Join(state, tokens.UsageName))
	if err != nil {
		t.Fatal(err)
	}
	owner := strings.Repeat("o", 32)
	h, _, _ := newTestHandler(t, Options{Token: owner, Tokens: reg})
	for _, tc := range []struct {
		name, authz, challenge string
	}{
		{"no token", "", `Bearer realm="dir2mcp"`},
		{"other scheme", "Basic dXNlcjpwYXNz", `Bearer realm="dir2mcp"`},
		{"wrong token", "Bearer " + strings.Repeat("x", 32),
			`Bearer realm="dir2mcp", error="invalid_token", error_description="the bearer token is not valid for this server"`},
		{"expired token", "Bearer " + expired, `Bearer realm="dir2mcp", error="invalid_token", error_description="the token 'old' expired at `},
	} {
		hdr := map[string]string{}
		if tc.authz != "" {
			hdr["Authorization"] = tc.authz
		}
		w := rpc(t, withHeaders(h, hdr), "", initBody)
		got := w.Header().Get("WWW-Authenticate")
		if w.Code != 401 || !strings.HasPrefix(got, tc.challenge) || (tc.authz == "" || strings.HasPrefix(tc.authz, "Basic")) && got != tc.challenge {
			t.Errorf("%s: %d, WWW-Authenticate %q, want %q", tc.name, w.Code, got, tc.challenge)
		}
		var body struct {
			Error struct {
				Data struct{ Code, Message string } `json:"data"`
			} `json:"error"`
		}
		json.Unmarshal(w.Body.Bytes(), &body)
		msg := body.Error.Data.Message
		if body.Error.Data.Code != "UNAUTHORIZED" || !strings.Contains(msg, "secret.token") ||
			!strings.Contains(msg, "--auth file:PATH") || !strings.Contains(msg, "dir2mcp config client") {
			t.Errorf("%s: body does not say where the token is: %s", tc.name, w.Body.String())
		}
		if strings.Contains(w.Body.String(), state) || strings.Contains(w.Body.String(), owner) || strings.Contains(w.Body.String(), expired) {
			t.Errorf("%s: body leaks a path or token: %s", tc.name, w.Body.String())
		}
	}
	if w := rpc(t, withBearer(h, owner), "", initBody); w.Code != 200 {
		t.Errorf("owner token: %d", w.Code)
	}
}
