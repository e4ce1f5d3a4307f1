// Package mcpserver exposes a dir2mcp index over MCP (SPEC §10–15) with the
// official go-sdk: the dir2mcp.* tools, and an HTTP handler adding bearer
// auth, an Origin allowlist and a health endpoint around the SDK's
// Streamable HTTP transport.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is reported as serverInfo.version.
var Version = "0.4.0"

// Server holds what the tools need. Build one per state directory and call
// MCP to get the protocol server.
type Server struct {
	Engine  *retrieve.Engine
	Store   *store.Store
	Root    *rootfs.Root
	Dir     state.Dir
	Exclude *exclude.Engine
	Config  *config.Config
	Models  state.Models
	// Status reports the current indexing job (nil: read corpus.json).
	Status func(ctx context.Context) indexer.Status
	Logger *slog.Logger
	Events *events.Emitter
}

const instructions = `dir2mcp serves one directory as a searchable index.
Start with dir2mcp.search (plain-language questions and exact identifiers both work; results cite path and lines),
verify with dir2mcp.open_file on the cited lines, use dir2mcp.list_files to navigate and dir2mcp.stats for index health.
dir2mcp.ask returns an answer with citations. Indexing runs in the background: results may be partial until indexing_complete is true.`

// MCP returns a protocol server exposing the tools.
func (s *Server) MCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{
		Name: "dir2mcp", Title: "dir2mcp: Directory RAG MCP Server", Version: Version,
	}, &mcp.ServerOptions{
		Instructions:              instructions,
		Logger:                    s.logger(),
		SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26"},
	})
	for _, t := range s.tools() {
		srv.AddTool(t.tool, s.wrap(t.tool.Name, t.run))
	}
	return srv
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// toolFunc runs a tool on raw arguments and returns its structured output
// and a human summary, or a coded error.
type toolFunc func(ctx context.Context, raw json.RawMessage) (out any, summary string, err error)

type toolDef struct {
	tool *mcp.Tool
	run  toolFunc
}

func readOnly(title string, idempotent bool) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: idempotent, OpenWorldHint: &f, DestructiveHint: &f}
}

func (s *Server) tools() []toolDef {
	return []toolDef{
		{&mcp.Tool{Name: "dir2mcp.search", Title: "Search the directory",
			Description: "Hybrid search (BM25 keywords + semantic vectors) over every indexed file. Returns the best chunks with rel_path, a focused snippet and a line/page/time span to cite or open.",
			InputSchema: schema(searchInput), OutputSchema: schema(searchOutput), Annotations: readOnly("Search the directory", true)},
			s.search},
		{&mcp.Tool{Name: "dir2mcp.ask", Title: "Answer a question with citations",
			Description: "Answers a question from the indexed content with citations like [path:L10-L20]. mode=search_only returns the supporting hits without an answer.",
			InputSchema: schema(askInput), OutputSchema: schema(askOutput), Annotations: readOnly("Answer with citations", true)},
			s.ask},
		{&mcp.Tool{Name: "dir2mcp.open_file", Title: "Open a file slice",
			Description: "Returns the exact text of a file under the root: a line range, a PDF page or a transcript time range, for verifying a citation. Paths outside the root and files matching secret/exclude rules are refused.",
			InputSchema: schema(openFileInput), OutputSchema: schema(openFileOutput), Annotations: readOnly("Open a file slice", true)},
			s.openFile},
		{&mcp.Tool{Name: "dir2mcp.list_files", Title: "List indexed files",
			Description: "Lists files known to the index (path, type, size, status), filtered by path prefix or glob, with paging.",
			InputSchema: schema(listFilesInput), OutputSchema: schema(listFilesOutput), Annotations: readOnly("List indexed files", true)},
			s.listFiles},
		{&mcp.Tool{Name: "dir2mcp.stats", Title: "Index status",
			Description: "Indexing progress and health: counters, models in use, vector index sizes.",
			InputSchema: schema(statsInput), OutputSchema: schema(statsOutput), Annotations: readOnly("Index status", false)},
			s.stats},
	}
}

// wrap turns a toolFunc into an SDK handler: success → structuredContent and
// a text summary; failure → an isError result carrying {code, message,
// retryable} (SPEC §12.4).
func (s *Server) wrap(name string, run toolFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, summary, err := run(ctx, req.Params.Arguments)
		if err != nil {
			e := errcode.As(err)
			if e.Code == errcode.Internal {
				s.logger().Error("tool failed", "tool", name, "err", events.Redact(err.Error()))
			}
			return errorResult(e), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: summary}},
			StructuredContent: out,
		}, nil
	}
}

// toolError is the structuredContent of a failed tool call.
type toolError struct {
	Error toolErrorBody `json:"error"`
}

type toolErrorBody struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Retryable    bool   `json:"retryable"`
	Field        string `json:"field,omitempty"`
	RetryAfterMs int64  `json:"retryAfterMs,omitempty"`
}

func errorResult(e *errcode.Error) *mcp.CallToolResult {
	msg := events.Redact(e.Message)
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("ERROR: %s: %s", e.Code, msg)}},
		StructuredContent: toolError{toolErrorBody{
			Code: string(e.Code), Message: msg, Retryable: e.Retryable, Field: e.Field, RetryAfterMs: e.RetryAfterMs,
		}},
	}
}
