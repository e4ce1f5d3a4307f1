package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Wire is an MCP session over Streamable HTTP driven by JSON-RPC messages
// its caller writes. It frames them as the transport requires (bearer
// token, Accept, the session id and protocol version once initialized)
// and returns each answer's JSON as the server sent it, never decoded: for
// wire-level tests, which compare those bytes, and for load generators,
// which must spend little CPU beside the server's. Agents' code uses
// Dial, the official SDK's client.
type Wire struct {
	url, token, session string
	hc                  *http.Client
	id                  int
}

// ProtocolVersion is the MCP revision a Wire session announces.
const ProtocolVersion = "2025-11-25"

// DialWire opens a session: initialize, then the initialized
// notification. hc nil means http.DefaultClient.
func DialWire(ctx context.Context, o Options, hc *http.Client) (*Wire, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	w := &Wire{url: o.URL, token: o.Token, hc: hc}
	if _, err := w.Post(ctx, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+ProtocolVersion+`","capabilities":{},"clientInfo":{"name":"dir2mcp-wire","version":"1"}}}`); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if w.session == "" {
		return nil, fmt.Errorf("initialize: the answer has no Mcp-Session-Id")
	}
	if _, err := w.Post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return w, nil
}

// Post sends one JSON-RPC message and returns the answer's JSON: the body
// without surrounding white space, or an event stream's data (its data
// lines joined by newlines); empty for an accepted notification. An HTTP
// status other than 2xx is an error holding the status and the body.
func (w *Wire) Post(ctx context.Context, body string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", w.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	w.authorize(req)
	resp, err := w.hc.Do(req)
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
		w.session = id
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return bytes.TrimSpace(out), nil
	}
	var data [][]byte
	for ln := range bytes.SplitSeq(out, []byte("\n")) {
		if d, ok := bytes.CutPrefix(bytes.TrimSuffix(ln, []byte("\r")), []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	return bytes.Join(data, []byte("\n")), nil
}

// CallTool sends tools/call for tool with args (a JSON object) and
// returns the answer's JSON.
func (w *Wire) CallTool(ctx context.Context, tool, args string) ([]byte, error) {
	w.id++
	name, _ := json.Marshal(tool)
	return w.Post(ctx, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s}}`, w.id, name, args))
}

// CheckStructured returns the failure an answer to tools/call for a tool
// with structured output reports (a JSON-RPC error, a result with isError
// set or without structuredContent), or nil. It reads the bytes without
// decoding them: inside a JSON string a quote is escaped, so these
// members followed by their colon can only be the answer's own.
func CheckStructured(answer []byte) error {
	switch {
	case bytes.Contains(answer, []byte(`"error":{`)):
		return fmt.Errorf("JSON-RPC error: %.300s", answer)
	case bytes.Contains(answer, []byte(`"isError":true`)) || !bytes.Contains(answer, []byte(`"structuredContent":{`)):
		return fmt.Errorf("tool error: %.300s", answer)
	}
	return nil
}

// Close ends the session (DELETE with its id).
func (w *Wire) Close() error {
	req, err := http.NewRequest("DELETE", w.url, nil)
	if err != nil {
		return err
	}
	w.authorize(req)
	resp, err := w.hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// authorize adds the token and, once initialized, the session headers.
func (w *Wire) authorize(req *http.Request) {
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	if w.session != "" {
		req.Header.Set("Mcp-Session-Id", w.session)
		req.Header.Set("MCP-Protocol-Version", ProtocolVersion)
	}
}
