package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool result is encoded once. The SDK would encode a *CallToolResult
// itself, and encoding/json validates and copies every pre-encoded part
// again at each level it passes (the text content inside the result, the
// structuredContent, the result inside the response): on a search answer
// that was most of the MCP layer's CPU. The controls encode the result
// (encodeResult), take the audit record's result size from it, and hand
// the SDK an encodedResult, whose JSON is those bytes.

// encodedResult is a tools/call result with its JSON: exactly
// json.Marshal(res), which is what the SDK writes for res. A middleware
// outside the controls that needs the result itself takes it with
// toolResult (then the SDK encodes what that middleware returns).
type encodedResult struct {
	mcp.ResultBase
	res *mcp.CallToolResult
	raw []byte
}

// MarshalJSON returns the encoded result; a _meta set on it since (SetMeta)
// is encoded with it.
func (r *encodedResult) MarshalJSON() ([]byte, error) {
	if r.Meta != nil {
		c := *r.res
		c.Meta = r.Meta
		return json.Marshal(&c)
	}
	return r.raw, nil
}

// toolResult returns the *mcp.CallToolResult a tools/call handler returned:
// res itself, or the result inside an encodedResult (nil for anything
// else).
func toolResult(res mcp.Result) *mcp.CallToolResult {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		return r
	case *encodedResult:
		return r.res
	}
	return nil
}

// Markers the skeleton of encodeResult holds where the large values go:
// an empty-width text and a one-byte structuredContent, each found once.
const textMarker = "\x00"

var (
	textMarkerJSON = []byte(`"text":"\u0000"`)
	rawMarkerJSON  = []byte(`"structuredContent":0`)
)

// encodeResult returns json.Marshal(res) (nil when res cannot be encoded).
// The two large values, the first content item's text and a
// structuredContent already encoded (a json.RawMessage, as secureResult
// leaves it), are encoded once and spliced into the encoding of the rest
// (the skeleton: result, content items, resource links), which
// json.Marshal writes, so the bytes are the SDK's own.
func encodeResult(res *mcp.CallToolResult) []byte {
	raw, _ := res.StructuredContent.(json.RawMessage)
	var text *mcp.TextContent
	if len(res.Content) > 0 {
		text, _ = res.Content[0].(*mcp.TextContent)
	}
	if text == nil && len(raw) == 0 {
		b, err := json.Marshal(res)
		if err != nil {
			return nil
		}
		return b
	}
	skel := *res
	var quoted []byte
	if text != nil {
		var err error
		if quoted, err = json.Marshal(text.Text); err != nil {
			return nil
		}
		skel.Content = slices.Clone(res.Content)
		skel.Content[0] = &mcp.TextContent{Text: textMarker, Meta: text.Meta, Annotations: text.Annotations}
	}
	if len(raw) > 0 {
		skel.StructuredContent = json.RawMessage("0")
	}
	b, err := json.Marshal(&skel)
	if err != nil {
		return nil
	}
	ti, ri := -1, -1
	if text != nil {
		if ti = bytes.Index(b, textMarkerJSON); ti < 0 || bytes.Count(b, textMarkerJSON) != 1 {
			return jsonOf(res)
		}
	}
	if len(raw) > 0 {
		if ri = bytes.Index(b, rawMarkerJSON); ri < 0 || bytes.Count(b, rawMarkerJSON) != 1 || ri < ti {
			return jsonOf(res)
		}
	}
	out := make([]byte, 0, len(b)+len(quoted)+len(raw))
	at := 0
	if ti >= 0 {
		out = append(out, b[:ti]...)
		out = append(out, `"text":`...)
		out = append(out, quoted...)
		at = ti + len(textMarkerJSON)
	}
	if ri >= 0 {
		out = append(out, b[at:ri]...)
		out = append(out, `"structuredContent":`...)
		out = append(out, raw...)
		at = ri + len(rawMarkerJSON)
	}
	return append(out, b[at:]...)
}

// jsonOf is json.Marshal(v), nil when v cannot be encoded.
func jsonOf(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
