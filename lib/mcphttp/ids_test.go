package mcphttp

import (
	"encoding/json"
	"strings"
	"testing"
)

// rpcBody returns the JSON-RPC message of a response, plain JSON or the
// data line of an SSE event.
func rpcBody(t *testing.T, body string) map[string]json.RawMessage {
	t.Helper()
	if i := strings.Index(body, "data: "); i >= 0 {
		body = body[i+len("data: "):]
		if j := strings.IndexByte(body, '\n'); j >= 0 {
			body = body[:j]
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("response is not JSON-RPC: %q", body)
	}
	return m
}

// TestIDsComeBackAsSent: an id the protocol allows comes back byte for
// byte; a numeric id the SDK would change (beyond ±(2^53-1), fractional,
// exponent) is refused with -32600, naming why and echoing it as sent.
func TestIDsComeBackAsSent(t *testing.T) {
	h, _, _ := newTestHandler(t, Options{})
	sid := initSession(t, h)
	for _, id := range []string{`9007199254740991`, `-9007199254740991`, `-7`, `"9223372036854775808"`, `"Ω"`} {
		w := rpc(t, h, sid, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
		if m := rpcBody(t, w.Body.String()); string(m["id"]) != id || m["result"] == nil {
			t.Errorf("ping id %s: %d %s", id, w.Code, w.Body.String())
		}
	}
	for _, id := range []string{`9223372036854775808`, `18446744073709551616`, `9007199254740993`, `-9223372036854775809`, `1.5`, `1e3`} {
		for _, body := range []string{`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`, `[{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}]`} {
			w := rpc(t, h, sid, body)
			m := rpcBody(t, w.Body.String())
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			json.Unmarshal(m["error"], &e)
			if w.Code != 400 || e.Code != -32600 || string(m["id"]) != id || !strings.Contains(e.Message, "string id") {
				t.Errorf("%s: %d %s", body, w.Code, w.Body.String())
			}
		}
	}
}
