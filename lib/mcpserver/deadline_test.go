package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call past server.tool_timeout is an isError TIMEOUT result, whether the
// tool stops when its context ends or ignores it; its context is cancelled.
// A provider tool gets server.provider_tool_timeout.
func TestToolCallDeadline(t *testing.T) {
	cfg := config.Default()
	cfg.Server.ToolTimeout = config.Duration(50 * time.Millisecond)
	cfg.Server.ProviderToolTimeout = config.Duration(time.Hour)
	s := &Server{Config: cfg}
	srv := s.MCP()
	cancelled := make(chan error, 1)
	release := make(chan struct{})
	defer close(release)
	for _, d := range []toolDef{
		{tool: &mcp.Tool{Name: "test.waits", InputSchema: inputSchema(nil)}, run: func(ctx context.Context, _ *args) (toolOut, error) {
			<-ctx.Done()
			cancelled <- ctx.Err()
			return toolOut{}, ctx.Err()
		}},
		{tool: &mcp.Tool{Name: "test.stuck", InputSchema: inputSchema(nil)}, run: func(ctx context.Context, _ *args) (toolOut, error) {
			<-release // ignores its context
			return toolOut{out: map[string]any{}}, nil
		}},
	} {
		srv.AddTool(d.tool, s.wrap(d))
	}
	cs := connect(t, s)
	for _, name := range []string{"test.waits", "test.stuck"} {
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := codeOf(t, r); got != "TIMEOUT" {
			t.Errorf("%s past its deadline: %q, want TIMEOUT", name, got)
		}
	}
	if err := <-cancelled; err != context.DeadlineExceeded {
		t.Errorf("the tool's context ended with %v", err)
	}
	open := true
	provider := &mcp.Tool{Name: "p", Annotations: &mcp.ToolAnnotations{OpenWorldHint: &open}}
	if got := s.timeout(provider); got != time.Hour {
		t.Errorf("provider tool deadline %s", got)
	}
	if got := (&Server{}).timeout(nil); got != defaultToolTimeout {
		t.Errorf("default deadline %s", got)
	}
}
