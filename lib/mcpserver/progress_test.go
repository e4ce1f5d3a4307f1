package mcpserver

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A long tool reports progress to a client that sent a progress token and
// stops when the client cancels the call.
func TestToolProgressAndCancellation(t *testing.T) {
	s := &Server{}
	srv := s.MCP()
	started := make(chan struct{})
	stopped := make(chan error, 1)
	slow := toolDef{tool: &mcp.Tool{Name: "test.slow", InputSchema: inputSchema(nil)},
		run: func(ctx context.Context, _ *args) (toolOut, error) {
			reportProgress(ctx, 0.5, "halfway")
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return toolOut{}, ctx.Err()
		}}
	srv.AddTool(slow.tool, s.wrap(slow))

	var mu sync.Mutex
	var got []string
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params.Message)
			mu.Unlock()
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "test.slow", Arguments: map[string]any{}}
		params.SetProgressToken("tok-1")
		_, err := cs.CallTool(callCtx, params)
		done <- err
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("tool did not start")
	}
	cancel()
	select {
	case err := <-stopped:
		if err == nil {
			t.Error("tool context not cancelled")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/cancelled did not reach the tool")
	}
	<-done
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 || got[0] != "running test.slow" || got[1] != "halfway" {
		t.Errorf("progress messages %q", got)
	}
}
