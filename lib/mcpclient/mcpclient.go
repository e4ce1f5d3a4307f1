// Package mcpclient connects to a running dir2mcp server with the official
// go-sdk MCP client, using the connection details the server wrote to its
// state directory. Benchmarks, the eval harness and interop tests use it to
// talk to dir2mcp exactly as an agent does.
package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Client is an initialized MCP session with a dir2mcp server.
type Client struct {
	Session *mcp.ClientSession
}

// Options configure Dial.
type Options struct {
	URL   string // MCP endpoint
	Token string // bearer token ("" = none)
}

// FromStateDir reads connection.json (and the token file it names) of a
// running server.
func FromStateDir(dir string) (Options, error) {
	conn, err := state.Dir{Path: dir}.ReadConnection()
	if err != nil {
		return Options{}, err
	}
	o := Options{URL: conn.URL}
	switch conn.TokenSource {
	case "secret.token", "file":
		b, err := os.ReadFile(conn.TokenFile)
		if err != nil {
			return Options{}, err
		}
		o.Token = strings.TrimSpace(string(b))
	case "env":
		o.Token = os.Getenv(conn.TokenEnv)
	}
	return o, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Dial connects and initializes a session.
func Dial(ctx context.Context, o Options) (*Client, error) {
	hc := &http.Client{Transport: http.DefaultTransport}
	if o.Token != "" {
		hc.Transport = bearer{o.Token, http.DefaultTransport}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "dir2mcp-client", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: o.URL, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, err
	}
	return &Client{Session: s}, nil
}

// Close ends the session (DELETE on HTTP).
func (c *Client) Close() error { return c.Session.Close() }

// Call invokes a tool and decodes its structured output into out. A tool
// error is returned as an error carrying the tool's message.
func (c *Client) Call(ctx context.Context, tool string, args map[string]any, out any) error {
	res, err := c.Session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return err
	}
	if res.IsError {
		msg := "tool error"
		if len(res.Content) > 0 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				msg = t.Text
			}
		}
		return fmt.Errorf("%s: %s", tool, msg)
	}
	if out == nil {
		return nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
