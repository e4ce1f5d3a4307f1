package mcphttp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// broadcasts are the notifications the SDK sends to every session outside
// any request: they can only travel on a session's GET stream.
var broadcasts = map[string]bool{
	"notifications/resources/list_changed": true,
	"notifications/resources/updated":      true,
	"notifications/tools/list_changed":     true,
	"notifications/prompts/list_changed":   true,
}

// skipUnreachable is sending middleware that drops a broadcast to a session
// of this table with no open GET stream (or already expired): it could not
// be delivered, and the SDK would log one warning per such session — a
// flood once many clients have left without DELETE.
func (t *sessionTable) skipUnreachable(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if broadcasts[method] {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && !t.reachable(ss.ID()) {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}

// reachable reports whether a broadcast can reach session id: false for a
// session this table expired or holds without an open stream; true for
// ids it does not know (another transport's).
func (t *sessionTable) reachable(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if st, ok := t.live[id]; ok {
		return st.streams > 0
	}
	_, expired := t.expired[id]
	return !expired
}
