package rpcframe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzCheck: Check never panics; a message it accepts the SDK decodes, and
// the id the SDK will answer with encodes to the bytes that were sent; a
// refusal is a well-formed JSON-RPC error.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":"x","result":{}}`,
		`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, `{"jsonrpc":"2.0","id":-0,"method":"a"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","method":"n","params":null}`, `garbage`, `{`, `null`, "{\"id\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		hung := time.AfterFunc(2*time.Second, func() { panic(fmt.Sprintf("Check hangs on %q", msg)) })
		r := Check(msg)
		hung.Stop()
		if r != nil {
			var resp map[string]json.RawMessage
			if err := json.Unmarshal(r.Response(), &resp); err != nil || resp["error"] == nil {
				t.Fatalf("refusal is not JSON-RPC: %s", r.Response())
			}
			return
		}
		m, err := jsonrpc.DecodeMessage(bytes.TrimSpace(msg))
		if err != nil {
			t.Fatalf("accepted %q, the SDK refuses it: %v", msg, err)
		}
		var id jsonrpc.ID
		switch m := m.(type) {
		case *jsonrpc.Request:
			id = m.ID
		case *jsonrpc.Response:
			id = m.ID
		}
		var sent struct {
			ID json.RawMessage `json:"id"`
		}
		var raw map[string]json.RawMessage
		json.Unmarshal(msg, &raw)
		sent.ID = raw["id"]
		if !id.IsValid() {
			if sent.ID != nil && string(sent.ID) != "null" { // a notification may carry id null
				t.Fatalf("id %s lost", sent.ID)
			}
			return
		}
		back, _ := json.Marshal(id.Raw())
		var want any
		json.Unmarshal(sent.ID, &want)
		wantJSON, _ := json.Marshal(want)
		if string(back) != string(wantJSON) {
			t.Fatalf("id %s comes back as %s", sent.ID, back)
		}
	})
}
