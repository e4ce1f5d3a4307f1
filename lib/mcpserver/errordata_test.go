package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A resources/read of a URI the SDK quotes Go-style in its "Resource not
// found" data (a DEL, an unprintable astral character) is answered with an
// error whose data is JSON; before, the answer could not be encoded, the
// request was never answered and a stdio session ended (FuzzServeIO).
func TestUnencodableNotFoundIsAnswered(t *testing.T) {
	_, cs := newIndexedServer(t, map[string]string{"a.md": "alpha"}, nil)
	for _, uri := range []string{"dir2md\x7f:/F/x", "x\U000e0001y", "dir2mcp:///a\x7f.md"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		cancel()
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !json.Valid(je.Data) {
			t.Errorf("read %q: %v (want a JSON-RPC error with JSON data)", uri, err)
			continue
		}
		var d struct{ URI string }
		if json.Unmarshal(je.Data, &d); len(je.Data) > 0 && d.URI != uri {
			t.Errorf("read %q: data %s", uri, je.Data)
		}
	}
}
