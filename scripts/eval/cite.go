package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/cite"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// citer checks citations the way a client would: it opens each hit's cited
// span with the real dir2mcp.open_file tool, served by mcpserver over the
// same state and root through the go-sdk's in-memory transport, and asks
// whether the snippet lies inside what came back.
type citer struct {
	session *mcp.ClientSession
	seen    map[string]openAnswer // the tool's answer per (path, span): it is deterministic
}

type openAnswer struct {
	content string
	ok      bool // the tool accepted the span
}

func newCiter(ctx context.Context, eng *retrieve.Engine, st *store.Store, dir state.Dir, root string, cfg *config.Config) (*citer, error) {
	r, err := rootfs.Open(root)
	if err != nil {
		return nil, err
	}
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		return nil, err
	}
	srv := &mcpserver.Server{Engine: eng, Store: st, Root: r, Dir: dir, Exclude: ex, Config: cfg, ReadOnly: true}
	ct, stt := mcp.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, stt, nil); err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "dir2mcp-eval", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	return &citer{session: cs, seen: map[string]openAnswer{}}, nil
}

func (c *citer) close() { c.session.Close() }

// check opens h's span and reports whether h's snippet is inside it by
// the citation rule (lib/cite.Check). A span the tool rejects is a wrong
// citation; a failing transport is an error.
func (c *citer) check(ctx context.Context, h retrieve.Hit) (bool, error) {
	args := map[string]any{"rel_path": h.RelPath, "max_chars": 50000}
	switch h.Span.Kind {
	case record.SpanLines:
		args["start_line"], args["end_line"] = h.Span.StartLine, h.Span.EndLine
	case record.SpanPage:
		args["page"] = h.Span.Page
	case record.SpanTime:
		args["start_ms"], args["end_ms"] = h.Span.StartMs, h.Span.EndMs
	}
	key := fmt.Sprint(args)
	a, seen := c.seen[key]
	if !seen {
		res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: args})
		if err != nil {
			return false, fmt.Errorf("open_file %v: %w", args, err)
		}
		if !res.IsError {
			var out struct {
				Content string `json:"content"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if err := json.Unmarshal(b, &out); err != nil {
				return false, fmt.Errorf("open_file %v: %w", args, err)
			}
			a = openAnswer{content: out.Content, ok: true}
		}
		c.seen[key] = a
	}
	if !a.ok {
		return false, nil
	}
	return cite.Check(h.Snippet, a.content, h.DocType), nil
}
