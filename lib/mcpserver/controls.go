package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The operator's controls run on every request, for every tool (present
// and future) and every transport, as receiving middleware:
//
//   - scope: the credential's scope (Credential; none on stdio) travels in
//     the request context (corpus.WithScope), so file access refuses paths
//     outside it; tools/list and resources/list show only what it allows;
//   - tool allowlist: a tool outside server.tools (--tools) or outside the
//     credential's tools is refused with OUT_OF_SCOPE before it runs (an
//     isError result, which the payment gate around the controls never
//     charges);
//   - redaction: credentials (security.redact) are masked in every tool
//     result and resources/read content — text, structuredContent string
//     values, resource links, and binary payloads byte for byte — and the
//     count of masked spans the result shows goes into structuredContent
//     ("redactions"). Masking a result cannot see a credential the result
//     holds only part of: tools that cut content (open_file's line ranges
//     and exact reads) mask the whole file first, and grep searches the
//     masked text the index holds;
//   - a last check that no structuredContent rel_path, and no resource
//     link, lies outside the scope: such a result is replaced by an
//     OUT_OF_SCOPE error (it would be a bug in a tool's filtering);
//   - audit: one record per tools/call and resources/read.
func (s *Server) controls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		label, scope := credentialOf(req)
		ctx = corpus.WithScope(ctx, scope)
		switch method {
		case "tools/call":
			call, ok := req.(*mcp.CallToolRequest)
			if !ok || call.Params == nil {
				break
			}
			return s.controlledCall(ctx, call, label, scope, next)
		case "resources/read":
			return s.controlledRead(ctx, req, label, next)
		case "tools/list":
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListToolsResult); ok && scope != nil && len(scope.Tools) > 0 {
				l.Tools = slices.DeleteFunc(slices.Clone(l.Tools), func(t *mcp.Tool) bool { return !scope.AllowsTool(t.Name) })
			}
			return res, err
		case "resources/list":
			if err := s.catalog.wait(ctx); err != nil {
				return nil, err
			}
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListResourcesResult); ok && len(scope.Paths()) > 0 {
				l.Resources = slices.DeleteFunc(slices.Clone(l.Resources), func(r *mcp.Resource) bool {
					rel, err := relFromURI(r.URI)
					return err != nil || !scope.AllowsPath(rel)
				})
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// controlledCall runs one tools/call under the controls.
func (s *Server) controlledCall(ctx context.Context, call *mcp.CallToolRequest, label string, scope *corpus.Scope, next mcp.MethodHandler) (mcp.Result, error) {
	start := time.Now()
	name := call.Params.Name
	rec := s.auditStart(call, label, name, call.Params.Arguments)
	var res *mcp.CallToolResult
	var err error
	switch {
	case !s.served[name] && slices.Contains(toolNames(), name):
		res = errorResult(errcode.New(errcode.OutOfScope, "%s is not enabled on this server (server.tools / --tools); the served tools are listed by tools/list", name))
	case !scope.AllowsTool(name):
		res = errorResult(errcode.New(errcode.OutOfScope, "the token %q may not call %s; it may call %s", label, name, strings.Join(scope.Tools, ", ")))
	default:
		var r mcp.Result
		r, err = next(ctx, "tools/call", call)
		res, _ = r.(*mcp.CallToolResult)
	}
	if res != nil {
		rec.Error = resultCode(res)
		if rec.Redactions = s.secureResult(ctx, res); rec.Redactions < 0 {
			rec.Redactions = 0
			rec.Error = string(errcode.OutOfScope)
			s.log.Error("a tool result named a path outside the caller's scope; refused", "tool", name, "token", label)
			*res = *errorResult(errcode.New(errcode.OutOfScope, "the result of %s named a file outside this credential's scope and was withheld", name))
		}
	}
	var raw []byte
	if res != nil {
		raw = encodeResult(res)
		rec.ResultBytes = len(raw)
	}
	err = s.auditFinish(ctx, rec, start, err)
	switch {
	case res == nil:
		return nil, err
	case raw != nil && err == nil:
		return &encodedResult{res: res, raw: raw}, nil
	}
	return res, err
}

// maskError masks credentials in a JSON-RPC error's message and data (an
// error may quote the request), after repairing data that is not JSON
// (errorData).
func (s *Server) maskError(err error) error {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return err
	}
	data, repaired := errorData(je.Data)
	if !s.redact.Enabled() && !repaired {
		return err
	}
	masked := *je
	masked.Data = data
	if s.redact.Enabled() {
		masked.Message, _ = s.redact.Mask(je.Message)
		masked.Data, _ = s.redact.MaskJSON(data)
	}
	return &masked
}

// errorData returns a JSON-RPC error's data as valid JSON, and whether it
// had to be repaired. The SDK's "Resource not found" writes {"uri":%q}:
// Go quoting turns a DEL or an unprintable astral character of the URI
// into \x7f or \U000e0001, which is not JSON, so the answer could not be
// encoded and the request was never answered (the session hung, and over
// stdio ended). Such data is re-encoded; other invalid data is dropped.
func errorData(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || json.Valid(raw) {
		return raw, false
	}
	if q, ok := strings.CutPrefix(string(raw), `{"uri":`); ok {
		if uri, err := strconv.Unquote(strings.TrimSuffix(q, "}")); err == nil {
			b, _ := json.Marshal(map[string]string{"uri": uri})
			return b, true
		}
	}
	return nil, true
}

// controlledRead runs one resources/read under the controls.
func (s *Server) controlledRead(ctx context.Context, req mcp.Request, label string, next mcp.MethodHandler) (mcp.Result, error) {
	start := time.Now()
	var rawArgs json.RawMessage
	if p, ok := req.GetParams().(*mcp.ReadResourceParams); ok && p != nil {
		rawArgs, _ = json.Marshal(map[string]string{"uri": p.URI})
	}
	rec := s.auditStart(req, label, "resources/read", rawArgs)
	res, err := next(ctx, "resources/read", req)
	if r, ok := res.(*mcp.ReadResourceResult); ok && r != nil {
		for _, c := range r.Contents {
			rec.Redactions += s.maskResource(c)
		}
		rec.ResultBytes = jsonSize(r)
	}
	return res, s.auditFinish(ctx, rec, start, err)
}

// jsonSize is the size of v as JSON (0 when it cannot be encoded).
func jsonSize(v any) int {
	return len(jsonOf(v))
}

// secureResult masks credentials in res and checks it against the scope
// ctx carries. It returns how many masked spans the result shows, or -1
// when it names a path outside the scope.
func (s *Server) secureResult(ctx context.Context, res *mcp.CallToolResult) int {
	scope := corpus.ScopeFrom(ctx)
	textCount := 0
	kept := res.Content[:0:0]
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			x.Text, _ = s.redact.Mask(x.Text)
			textCount += s.redact.Count(x.Text)
		case *mcp.ImageContent:
			x.Data, _ = s.redact.MaskBytes(x.Data)
		case *mcp.AudioContent:
			x.Data, _ = s.redact.MaskBytes(x.Data)
		case *mcp.EmbeddedResource:
			if x.Resource != nil {
				textCount += s.maskResource(x.Resource)
			}
		case *mcp.ResourceLink:
			if rel, err := relFromURI(x.URI); err == nil && !scope.AllowsPath(rel) {
				continue // never point at a file the caller may not read
			}
			x.Name, _ = s.redact.Mask(x.Name)
			x.Title, _ = s.redact.Mask(x.Title)
			x.Description, _ = s.redact.Mask(x.Description)
		}
		kept = append(kept, c)
	}
	res.Content = kept
	if res.StructuredContent == nil {
		return textCount
	}
	var b []byte
	var err error
	a, ok := res.StructuredContent.(jsonAppender)
	if ok {
		b, ok = a.appendJSON(nil)
	}
	if !ok { // not an appender, or a value it declines (json.Marshal errs too)
		b, err = json.Marshal(res.StructuredContent)
	}
	if err != nil {
		return textCount
	}
	if s.cleanJSON(b, scope) {
		// The common case: nothing to mask or withhold. The encoded form
		// is served as it is (not encoded again).
		res.StructuredContent = json.RawMessage(b)
		return textCount
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return textCount
	}
	v, _ = s.redact.MaskValue(v)
	if !pathsAllowed(v, scope) {
		return -1
	}
	n := countIn(v, s.redact.Count)
	if m, ok := v.(map[string]any); ok {
		// A tool that masked bytes in place (an exact read: '*' for each
		// byte, which Count cannot see) counted them itself.
		if k, ok := m["redactions"].(json.Number); ok {
			inPlace, _ := k.Int64()
			n += int(inPlace)
		}
		if n > 0 {
			m["redactions"] = n
		}
	}
	res.StructuredContent = v
	return n
}

// maskResource masks a resource's text, or its blob byte for byte, and
// returns the masked spans it shows.
func (s *Server) maskResource(c *mcp.ResourceContents) int {
	if c.Text != "" {
		c.Text, _ = s.redact.Mask(c.Text)
		return s.redact.Count(c.Text)
	}
	var n int
	c.Blob, n = s.redact.MaskBytes(c.Blob)
	return n
}

// pathsAllowed reports whether every "rel_path" string inside v is in scope.
func pathsAllowed(v any, scope *corpus.Scope) bool {
	if len(scope.Paths()) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if rel, ok := e.(string); ok && k == "rel_path" && rel != "" && !scope.AllowsPath(rel) {
				return false
			}
			if !pathsAllowed(e, scope) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !pathsAllowed(e, scope) {
				return false
			}
		}
	}
	return true
}

// countIn sums count over the strings inside v.
func countIn(v any, count func(string) int) int {
	switch x := v.(type) {
	case string:
		return count(x)
	case map[string]any:
		n := 0
		for _, e := range x {
			n += countIn(e, count)
		}
		return n
	case []any:
		n := 0
		for _, e := range x {
			n += countIn(e, count)
		}
		return n
	}
	return 0
}

// resultCode is the error code of a failed tool result ("" on success).
func resultCode(r *mcp.CallToolResult) string {
	if !r.IsError {
		return ""
	}
	switch sc := r.StructuredContent.(type) {
	case toolError:
		return sc.Error.Code
	case PaymentFailure:
		return sc.Detail.Code
	case json.RawMessage: // a result the controls already checked
		var e struct{ Error struct{ Code string } }
		if json.Unmarshal(sc, &e) == nil && e.Error.Code != "" {
			return e.Error.Code
		}
	case map[string]any: // a result the controls already rewrote
		if e, ok := sc["error"].(map[string]any); ok {
			if c, ok := e["code"].(string); ok && c != "" {
				return c
			}
		}
	}
	return "TOOL_ERROR"
}

// protocolCode names a JSON-RPC failure of a request for the audit log.
func protocolCode(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return "CANCELLED"
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		var d struct{ Code string }
		if json.Unmarshal(je.Data, &d) == nil && d.Code != "" {
			return d.Code // resources/read failures carry the canonical code
		}
		if je.Code == jsonrpc.CodeInvalidParams {
			return string(errcode.InvalidField)
		}
	}
	return string(errcode.Internal)
}

// auditStart begins the audit record of a request.
func (s *Server) auditStart(req mcp.Request, label, tool string, args json.RawMessage) audit.Record {
	rec := audit.Record{Time: time.Now().UTC(), Token: label, Tool: tool, Transport: "stdio"}
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		rec.Transport = "http"
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		rec.Session = ss.ID()
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			rec.Client, rec.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
		}
	}
	if rec.Session == "" {
		rec.Session = s.stdioSession
	}
	if s.Audit == nil {
		return rec
	}
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	rec.ArgsSHA256 = audit.Digest(args)
	rec.Args = audit.KeptArgs(args, func(v string) string {
		m, _ := s.redact.Mask(v)
		return m
	})
	return rec
}

// auditFinish completes rec with the code of err, writes it, and returns
// err with credentials masked.
func (s *Server) auditFinish(ctx context.Context, rec audit.Record, start time.Time, err error) error {
	rec.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		rec.Error = protocolCode(ctx, err)
		err = s.maskError(err)
	}
	s.Audit.Write(rec)
	return err
}
