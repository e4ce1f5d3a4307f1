package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

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

// lightSearcher is a load generator's client: it speaks Streamable HTTP
// itself (initialize, initialized, then tools/call with the session id,
// as the MCP spec lays out) and checks each answer only for a JSON-RPC
// error or a tool error, so on a machine it shares with the server it
// takes little CPU (it does not decode the result): the calls/s it sees are the server's capacity rather
// than what the server and a go-sdk client manage together.
type lightSearcher struct {
	url, token, session string
	hc                  *http.Client
	id                  int
}

func dialLight(ctx context.Context, o mcpclient.Options) (*lightSearcher, error) {
	s := &lightSearcher{url: o.URL, token: o.Token, hc: &http.Client{}}
	if _, err := s.post(ctx, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-light","version":"1"}}}`); err != nil {
		return nil, err
	}
	if s.session == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id")
	}
	if _, err := s.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return s, nil
}

// post sends one JSON-RPC message and returns the answer's JSON (the data
// of its first SSE event when the server streams it).
func (s *lightSearcher) post(ctx context.Context, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(out))
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.session = id
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for ln := range bytes.SplitSeq(out, []byte("\n")) {
			if data, ok := bytes.CutPrefix(ln, []byte("data:")); ok {
				return bytes.TrimSpace(data), nil
			}
		}
		return nil, fmt.Errorf("event stream without data: %.200s", out)
	}
	return out, nil
}

func (s *lightSearcher) search(ctx context.Context, q string) error {
	s.id++
	qj, _ := json.Marshal(q)
	out, err := s.post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":{"query":%s,"k":10}}}`, s.id, qj))
	if err != nil {
		return err
	}
	// Inside JSON strings a quote is escaped, so these keys followed by
	// their colon can only be the answer's own members.
	switch {
	case bytes.Contains(out, []byte(`"error":{`)):
		return fmt.Errorf("JSON-RPC error: %.300s", out)
	case bytes.Contains(out, []byte(`"isError":true`)) || !bytes.Contains(out, []byte(`"structuredContent":{`)):
		return fmt.Errorf("dir2mcp.search: tool error: %.300s", out)
	}
	return nil
}

// close ends the session as the spec asks (DELETE with its id).
func (s *lightSearcher) close() {
	req, err := http.NewRequest("DELETE", s.url, nil)
	if err != nil {
		return
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	req.Header.Set("Mcp-Session-Id", s.session)
	if resp, err := s.hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// dialSearcher opens one session: a go-sdk client, or a light one.
func dialSearcher(ctx context.Context, o mcpclient.Options, light bool) (searcher, error) {
	if light {
		return dialLight(ctx, o)
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
