package mistral

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/chat"
)

// Chat returns a chat completion (POST /v1/chat/completions). An empty
// req.Model takes DefaultChatModel.
func (c *Client) Chat(ctx context.Context, req chat.Request) (*chat.Response, error) {
	if req.Model == "" {
		req.Model = DefaultChatModel
	}
	return c.http.PostChatCompletions(ctx, "/v1/chat/completions", "", req)
}

var _ chat.Chatter = (*Client)(nil)
