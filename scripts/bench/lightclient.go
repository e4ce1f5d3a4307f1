package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/dir2mcp/dir2mcp/lib/mcpclient"
)

// searcher is one client session that calls dir2mcp.search.
type searcher interface {
	search(ctx context.Context, q string) error
	close()
}

// sdkSearcher is the official go-sdk client: what an agent written in Go
// runs, decoding every result into the SDK's types.
type sdkSearcher struct{ c *mcpclient.Client }

func (s sdkSearcher) search(ctx context.Context, q string) error {
	return s.c.Call(ctx, "dir2mcp.search", map[string]any{"query": q, "k": 10}, nil)
}

func (s sdkSearcher) close() { s.c.Close() }

// lightSearcher is a load generator's client: a mcpclient.Wire session
// that checks each answer only for a JSON-RPC error or a tool error,
// without decoding it, so on a machine it shares with the server it takes
// little CPU: the calls/s it sees are the server's capacity rather than
// what the server and a go-sdk client manage together.
type lightSearcher struct{ w *mcpclient.Wire }

func (s lightSearcher) search(ctx context.Context, q string) error {
	qj, _ := json.Marshal(q)
	out, err := s.w.CallTool(ctx, "dir2mcp.search", fmt.Sprintf(`{"query":%s,"k":10}`, qj))
	if err != nil {
		return err
	}
	return mcpclient.CheckStructured(out)
}

func (s lightSearcher) close() { s.w.Close() }

// dialSearcher opens one session: a go-sdk client, or a light one.
func dialSearcher(ctx context.Context, o mcpclient.Options, light bool) (searcher, error) {
	if light {
		w, err := mcpclient.DialWire(ctx, o, &http.Client{})
		if err != nil {
			return nil, err
		}
		return lightSearcher{w}, nil
	}
	c, err := mcpclient.Dial(ctx, o)
	if err != nil {
		return nil, err
	}
	return sdkSearcher{c}, nil
}

// clientKind names the clients hammer runs.
func clientKind(light bool) string {
	if light {
		return "light clients"
	}
	return "go-sdk clients"
}
