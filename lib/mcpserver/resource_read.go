package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/extract"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readResource serves resources/read for listed files and for the path
// template with the same checks as open_file: root confinement, the state
// directory, path excludes and secret patterns, and the same size cap
// (larger files are FILE_TOO_LARGE; open_file reads them by line range).
// Text files come back as text, anything else as a base64 blob. Failures are
// JSON-RPC errors whose data carries {uri, code, message, retryable}.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	c, err := withDeadline(ctx, s.timeout(nil), func(ctx context.Context) (*mcp.ResourceContents, error) {
		return s.readContents(ctx, uri)
	})
	if err != nil {
		return nil, resourceError(uri, err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
}

func (s *Server) readContents(ctx context.Context, uri string) (*mcp.ResourceContents, error) {
	rel, err := relFromURI(uri)
	if err != nil {
		return nil, err
	}
	t, err := s.access.Open(ctx, rel)
	if err != nil {
		return nil, err
	}
	rel = t.Rel
	data, truncated, err := s.access.Read(ctx, &t, maxOpenBytes)
	if err != nil {
		return nil, err
	}
	if truncated {
		return nil, errcode.FieldError(errcode.FileTooLarge, "uri",
			"%s is larger than %d MiB; read it in slices with dir2mcp.open_file", rel, maxOpenBytes>>20)
	}
	if err := s.access.CheckSecret(rel, data); err != nil {
		return nil, err
	}
	docType := t.DocType
	mt := mimeType(rel, docType)
	switch docType {
	case record.DocCode, record.DocText, record.DocMarkdown, record.DocData, record.DocHTML:
		if txt, err := extract.SourceText(data, docType); err == nil { // the lines citations count
			return &mcp.ResourceContents{URI: uri, MIMEType: mt, Text: txt}, nil
		}
		if mt == "text/plain" || mt == "text/markdown" {
			mt = "application/octet-stream"
		}
	}
	return &mcp.ResourceContents{URI: uri, MIMEType: mt, Blob: data}, nil
}

// resourceError maps a coded error to a JSON-RPC error: unknown files are
// "resource not found" (-32602 per SEP-2164, as the SDK reports it), other
// refusals invalid params, the rest internal errors.
func resourceError(uri string, err error) error {
	e := errcode.As(err)
	code := int64(jsonrpc.CodeInvalidParams)
	switch e.Code {
	case errcode.FileNotFound, errcode.PathOutsideRoot:
		code = mcp.CodeResourceNotFound
	case errcode.Internal, errcode.StoreCorrupt:
		code = jsonrpc.CodeInternalError
	}
	msg := events.Redact(e.Message)
	data, _ := json.Marshal(map[string]any{"uri": uri, "code": e.Code, "message": msg, "retryable": e.Retryable})
	return &jsonrpc.Error{Code: code, Message: string(e.Code) + ": " + msg, Data: data}
}
