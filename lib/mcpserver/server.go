// Package mcpserver exposes a dir2mcp index over MCP (SPEC §10–15) with the
// official go-sdk: the dir2mcp.* tools, every indexed file as a resource,
// prompts, completion, client logging, and the x402 MCP-native payment
// flow. It serves stdio itself; lib/mcphttp serves it over Streamable HTTP.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/cursor"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/grep"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/models"
	"github.com/dir2mcp/dir2mcp/lib/ratelimit"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/rpcframe"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/version"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server holds what the tools need. Build one per state directory and call
// MCP to get the protocol server (mcphttp.New serves it over HTTP), or
// ServeStdio to serve it over stdin/stdout.
type Server struct {
	Engine  *retrieve.Engine
	Store   *store.Store
	Root    *rootfs.Root
	Dir     state.Dir
	Exclude *exclude.Engine
	Config  *config.Config
	// Models names the models in use, for stats (nil: none named). It is
	// asked at each stats call, so naming them (an OCR binary's version)
	// never delays the server's start.
	Models func() state.Models
	// Status reports the current indexing job (nil: read corpus.json).
	Status func(ctx context.Context) indexer.Status
	// Replica reports a serve replica's stream position and lag (nil: not
	// a replica); stats shows it.
	Replica func() any
	// Logger receives server logs (stderr or a log file); they also flow to
	// clients that set a level with logging/setLevel.
	Logger *slog.Logger
	Events *events.Emitter
	// ReadOnly hides the tools that store anything in the index
	// (transcribe, annotate, transcribe_and_ask): `--read-only`.
	ReadOnly bool
	// PageSize is the page size of list results such as resources/list
	// (0 = 500).
	PageSize int
	// Providers are the OCR, speech-to-text, chat, annotation and
	// text-to-speech models (nil: none; ask answers extractively).
	Providers *models.Set
	// Pending, if set, is called after a tool stored chunks that await
	// embedding (a transcript, an annotation), so the indexer embeds them.
	Pending func()
	// Audit receives one record per tools/call and resources/read (nil: no
	// audit log).
	Audit *audit.Log

	once      sync.Once
	srv       *mcp.Server
	access    *corpus.Access
	catalog   *catalog
	expensive *ratelimit.Limiter
	log       *slog.Logger
	redact    *exclude.Redactor // security.redact; nil masks nothing
	// replacementJSON is redact's replacement as it reads inside a JSON
	// string.
	replacementJSON []byte
	served          map[string]bool // the registered tools
	// stdioSession names the stdio client's session in audit records.
	stdioSession string
	cursors      *cursor.Signer
	grepIndex    *grep.Index
	// searchFunc, if set, answers searches instead of Engine.Search
	// (benchmarks of the MCP layer).
	searchFunc func(ctx context.Context, req retrieve.Request) (retrieve.Result, error)
	// catalogHold, if set, runs before the first resource list is read
	// (tests hold the catalog there).
	catalogHold func()
	calls       atomic.Int64 // tool calls begun
}

const instructions = `dir2mcp serves one directory as a searchable index.
Start with dir2mcp.search (plain-language questions and exact identifiers both work; results cite path and lines),
verify with dir2mcp.open_file on the cited lines, use dir2mcp.list_files to navigate and dir2mcp.stats for index health.
dir2mcp.grep finds exact strings or regular expressions line by line, dir2mcp.find lists files by glob, size, time and type,
dir2mcp.open_file with offset/length reads exact bytes and dir2mcp.checksum digests a file. Long lists continue with next_cursor.
dir2mcp.diff lists the files changed since the last index run.
dir2mcp.ask returns an answer with citations. PDFs cite pages ([a.pdf#p=2], open with page), audio cites times ([a.mp3@t=01:05-01:35], open with start_ms/end_ms),
archive members are files named like docs.zip!/a/b.txt. dir2mcp.transcribe, dir2mcp.annotate, dir2mcp.transcribe_and_ask and dir2mcp.ask_audio use the configured providers.
Every indexed file is also a resource (dir2mcp:///<rel_path>).
Indexing runs in the background: results may be partial until indexing_complete is true.`

// ProtocolVersions are the MCP versions the server accepts, newest
// (negotiated by default) first.
var ProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// MCP returns the protocol server exposing the tools, resources, prompts,
// completions and logging. It is built once; later calls return the same
// server.
func (s *Server) MCP() *mcp.Server {
	s.once.Do(s.build)
	return s.srv
}

func (s *Server) build() {
	pageSize := s.PageSize
	if pageSize <= 0 {
		pageSize = 500
	}
	s.srv = mcp.NewServer(&mcp.Implementation{
		Name: "dir2mcp", Title: "dir2mcp: Directory RAG MCP Server", Version: version.Version,
	}, &mcp.ServerOptions{
		Instructions:              instructions,
		Logger:                    slog.New(minLevel{s.logger().Handler(), slog.LevelWarn}),
		PageSize:                  pageSize,
		SupportedProtocolVersions: ProtocolVersions,
		CompletionHandler:         s.complete,
		Capabilities: &mcp.ServerCapabilities{
			Logging:   &mcp.LoggingCapabilities{},
			Tools:     &mcp.ToolCapabilities{ListChanged: false},
			Prompts:   &mcp.PromptCapabilities{ListChanged: false},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		},
	})
	s.log = slog.New(fanout{s.logger().Handler(), newClientLog(s.srv)})
	s.access = &corpus.Access{Root: s.Root, StateDir: s.Dir.Path, Exclude: s.Exclude, Store: s.Store}
	s.cursors = s.cursorSigner()
	s.grepIndex = s.newGrepIndex()
	if s.Config != nil {
		rl := s.Config.Server.RateLimit
		s.expensive = ratelimit.New(rl.ExpensiveRPS, rl.ExpensiveBurst)
		s.access.Archives = indexer.ArchiveLimits(s.Config)
		s.redact, _ = indexer.Redactor(s.Config) // validated by the caller (CheckControls)
		s.access.Redact = s.redact
		if r, err := json.Marshal(s.redact.Replacement()); err == nil {
			s.replacementJSON = r[1 : len(r)-1] // as it reads inside a JSON string
		}
	}
	s.stdioSession = "stdio-" + randomID()
	// Payments (EnablePayments) wrap the controls: a call the controls
	// refuse is an isError result, which is never charged.
	s.srv.AddReceivingMiddleware(s.controls)
	s.served = map[string]bool{}
	for _, t := range s.tools() {
		s.srv.AddTool(t.tool, s.wrap(t))
		s.served[t.tool.Name] = true
	}
	s.addPrompts()
	s.catalog = newCatalog(s)
	s.srv.AddResourceTemplate(fileTemplate, s.readResource)
	// Listen before loading: the resource list is built in the
	// background, when first needed or when the owner calls Warm;
	// resources/list, completions and resource links wait for it
	// (catalog.wait), initialize and tools/list do not.
}

func (s *Server) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// toolOut is a tool's success: structured output, the text summary, and the
// files it refers to (returned as resource_link content items).
type toolOut struct {
	out     any
	summary string
	files   []string
	extra   []mcp.Content // after the summary (ask_audio's audio)
}

// toolFunc runs a tool on its validated arguments, or fails with a coded
// error.
type toolFunc func(ctx context.Context, a *args) (toolOut, error)

// toolDef is a served tool. To add one:
//  1. declare its arguments as params (params.go builders: str, oneOf,
//     integer, atLeast, boolean, strList, object), taking limits and enums
//     from the constants of the package that enforces them;
//  2. write its output schema (schemas.go) and a toolFunc reading the
//     arguments through args (already validated: accessors cannot fail),
//     and files only through s.access (lib/corpus: Open, Read,
//     CheckSecret);
//  3. list it in allTools (or providerTools): an mcp.Tool with name, title,
//     description, OutputSchema: outputSchema(...) and annotations
//     (readOnly or providerTool), plus in and run.
//
// InputSchema is generated from in, and every call is validated against
// the same params before run, so what tools/list advertises is what the
// tool accepts (TestToolsHonourTheirSchemas checks each bound and enum
// against the real handlers); failures are isError results with the
// spec's codes (errorResult).
type toolDef struct {
	tool *mcp.Tool
	in   []param
	run  toolFunc
	// expensive tools draw from the stricter rate-limit tier.
	expensive bool
}

// readOnly annotates a tool that only reads the index: no side effects, so
// repeated calls are idempotent, and no world outside the directory.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f, DestructiveHint: &f}
}

// tools returns the served tools: all of them, or with ReadOnly set only
// those that never write, and with server.tools (--tools) set only those
// it lists.
func (s *Server) tools() []toolDef {
	all := s.allTools()
	if s.Config != nil && len(s.Config.Server.Tools) > 0 {
		all = slices.DeleteFunc(all, func(d toolDef) bool { return !slices.Contains(s.Config.Server.Tools, d.tool.Name) })
	}
	if s.Providers != nil && s.Providers.Chat != nil {
		// Answers are written by a remote chat model: not a closed world.
		t := true
		for _, d := range all {
			if d.tool.Name == "dir2mcp.ask" {
				d.tool.Annotations.OpenWorldHint = &t
			}
		}
	}
	if !s.ReadOnly {
		return all
	}
	var out []toolDef
	for _, d := range all {
		if d.tool.Annotations.ReadOnlyHint {
			out = append(out, d)
		}
	}
	return out
}

func (s *Server) allTools() []toolDef {
	defs := append([]toolDef{
		{tool: &mcp.Tool{Name: "dir2mcp.search", Title: "Search the directory",
			Description:  "Hybrid search (BM25 keywords + semantic vectors) over every indexed file. Returns the best chunks with rel_path, a focused snippet and a line/page/time span to cite or open; in=title searches document titles and paths only.",
			OutputSchema: outputSchema(searchOutput), Annotations: readOnly("Search the directory")},
			in: searchParams, run: s.search},
		{tool: &mcp.Tool{Name: "dir2mcp.ask", Title: "Answer a question with citations",
			Description:  "Answers a question from the indexed content with citations like [path:L10-L20], [report.pdf#p=3] or [call.mp3@t=01:05-01:35]: written by the configured chat model (every citation checked against the hits), or quoted from the best passages when no chat model is configured. mode=search_only returns the supporting hits without an answer.",
			OutputSchema: outputSchema(askOutput), Annotations: readOnly("Answer with citations")},
			in: askParams, run: s.ask, expensive: true},
		{tool: &mcp.Tool{Name: "dir2mcp.open_file", Title: "Open a file slice",
			Description:  "Returns the exact text of a file under the root: a line range, a PDF page or a transcript time range, for verifying a citation; or, with offset/length, exact bytes of any file (text, or base64 for binary). Paths outside the root and files matching secret/exclude rules are refused.",
			OutputSchema: outputSchema(openFileOutput), Annotations: readOnly("Open a file slice")},
			in: openFileParams, run: s.openFile},
		{tool: &mcp.Tool{Name: "dir2mcp.list_files", Title: "List indexed files",
			Description:  "Lists files known to the index (path, type, size, status), filtered by path prefix or glob, with paging (next_cursor); excluded=true lists instead the files kept out for security, each with the rule that excluded it.",
			OutputSchema: outputSchema(listFilesOutput), Annotations: readOnly("List indexed files")},
			in: listFilesParams, run: s.listFiles},
		{tool: &mcp.Tool{Name: "dir2mcp.stats", Title: "Index status",
			Description:  "Indexing progress and health: counters, models in use, vector index sizes.",
			OutputSchema: outputSchema(statsOutput), Annotations: readOnly("Index status")},
			run: s.stats},
		{tool: &mcp.Tool{Name: "dir2mcp.diff", Title: "Files changed since indexing",
			Description:  "Lists the files added, modified and deleted under the root since the last index run (what the next run would index again), comparing content hashes where size or mtime changed.",
			OutputSchema: outputSchema(diffOutput), Annotations: readOnly("Files changed since indexing")},
			in: diffParams, run: s.diff, expensive: true},
	}, append(s.fileTools(), s.providerTools()...)...)
	for _, d := range defs {
		d.tool.InputSchema = inputSchema(d.in)
	}
	return defs
}

// maxLinks bounds the resource_link items added to a result.
const maxLinks = 10

// wrap turns a toolFunc into an SDK handler: the expensive tier's rate limit
// first, progress notifications when the client sent a progress token, then
// success → structuredContent, a text summary and resource_link items;
// failure → an isError result carrying {code, message, retryable} (SPEC
// §12.4). A call the client cancelled returns the context's error.
func (s *Server) wrap(t toolDef) mcp.ToolHandler {
	name := t.tool.Name
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.calls.Add(1)
		if t.expensive {
			if ok, wait := s.expensive.Allow(sessionKey(req.Session)); !ok {
				e := ratelimit.Exceeded(name, wait)
				s.log.Warn("rate limited", "tool", name, "retry_after_ms", e.RetryAfterMs)
				return errorResult(e), nil
			}
		}
		p := newProgress(ctx, req)
		p.report(0, "running "+name)
		start := time.Now()
		var res toolOut
		a, err := parseArgs(req.Params.Arguments, t.in)
		if err == nil {
			res, err = withDeadline(ctx, s.timeout(t.tool), func(ctx context.Context) (toolOut, error) {
				return t.run(withProgress(ctx, p), a)
			})
		}
		s.log.Debug("tool call", "tool", name, "ms", time.Since(start).Milliseconds(), "ok", err == nil)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			e := errcode.As(err)
			if e.Code == errcode.Internal {
				s.log.Error("tool failed", "tool", name, "err", events.Redact(err.Error()))
			}
			return errorResult(e), nil
		}
		p.report(1, "done")
		content := append([]mcp.Content{&mcp.TextContent{Text: res.summary}}, res.extra...)
		for _, l := range s.catalog.links(res.files, maxLinks) {
			content = append(content, l)
		}
		return &mcp.CallToolResult{Content: content, StructuredContent: res.out}, nil
	}
}

// Calls reports how many tool calls the server has begun since it
// started.
func (s *Server) Calls() int64 { return s.calls.Load() }

// sessionKey identifies a session for per-session limits ("" for stdio).
func sessionKey(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	return ss.ID()
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

// ServeStdio serves the protocol over stdin/stdout until ctx ends or the
// client closes stdin. Nothing but JSON-RPC is written to stdout.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.ServeIO(ctx, os.Stdin, os.Stdout)
}

// ServeIO serves the protocol over newline-delimited JSON-RPC on in and
// out until ctx ends or in does. A malformed message (not JSON, not a
// request, an id that would not survive decoding, a line over
// server.max_body_bytes, a batch unless the client asked for 2025-03-26)
// is answered with a JSON-RPC error and the session goes on
// (rpcframe.Filter).
func (s *Server) ServeIO(ctx context.Context, in io.Reader, out io.Writer) error {
	maxLine := 0
	if s.Config != nil {
		maxLine = int(min(s.Config.Server.MaxBodyBytes, math.MaxInt32))
	}
	if maxLine <= 0 {
		maxLine = rpcframe.DefaultMaxLine
	}
	var batchVersions []string // MCP removed batches in 2025-06-18
	for _, v := range ProtocolVersions {
		if v < "2025-06-18" {
			batchVersions = append(batchVersions, v)
		}
	}
	out = rpcframe.SyncWriter(out)
	return s.MCP().Run(ctx, &mcp.IOTransport{
		Reader: rpcframe.Filter(in, out, maxLine, batchVersions...), Writer: nopCloser{out},
		MaxLineLength: maxLine + 1, // the filter already bounds each line
	})
}

// nopCloser leaves stdout open when the session ends.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
