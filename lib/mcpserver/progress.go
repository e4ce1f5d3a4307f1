package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progress sends notifications/progress for one tool call when the client
// gave a progress token; otherwise it does nothing. Progress runs from 0 to 1.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return &progress{ctx: ctx, ss: req.Session, token: tok}
}

// report sends progress done (0..1) with a message.
func (p *progress) report(done float64, msg string) {
	if p == nil {
		return
	}
	_ = p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: done, Total: 1, Message: msg})
}

type progressKey struct{}

func withProgress(ctx context.Context, p *progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// reportProgress reports an intermediate step of the tool running in ctx.
func reportProgress(ctx context.Context, done float64, msg string) {
	p, _ := ctx.Value(progressKey{}).(*progress)
	p.report(done, msg)
}
