package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"
	"unicode/utf8"

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
	if b, ok := encodeCommon(res); ok {
		return b
	}
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

// The common result, a summary text, resource links and structuredContent
// already encoded, is written from its parts (encodeCommon): the text
// encoded once, each link as json.Marshal encodes it (remembered by
// value: links name the same files again and again), and the result's
// frame as the SDK writes it, checked once against json.Marshal (frameOK).

// encodeCommon returns json.Marshal(res) when res has the common shape,
// ok false otherwise.
func encodeCommon(res *mcp.CallToolResult) ([]byte, bool) {
	raw, _ := res.StructuredContent.(json.RawMessage)
	if res.Meta != nil || len(res.Content) == 0 || len(raw) == 0 || !frameOK() {
		return nil, false
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil || text.Meta != nil || text.Annotations != nil {
		return nil, false
	}
	links := make([][]byte, 0, len(res.Content)-1)
	size := len(raw) + 64
	for _, c := range res.Content[1:] {
		l, _ := c.(*mcp.ResourceLink)
		b := linkJSON(l)
		if b == nil {
			return nil, false
		}
		links = append(links, b)
		size += len(b) + 1
	}
	return appendFrame(make([]byte, 0, size+len(text.Text)+len(text.Text)/8), text.Text, links, raw, res.IsError), true
}

// appendFrame appends the result of text, links (encoded),
// structuredContent raw and isError, framed as CallToolResult encodes.
func appendFrame(b []byte, text string, links [][]byte, raw []byte, isError bool) []byte {
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = appendJSONString(b, text)
	b = append(b, '}')
	for _, l := range links {
		b = append(append(b, ','), l...)
	}
	b = append(b, `],"structuredContent":`...)
	b = append(b, raw...)
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

// frameOK reports whether appendFrame writes what json.Marshal writes for
// this SDK's CallToolResult (checked on samples once).
var frameOK = sync.OnceValue(func() bool {
	size := int64(7)
	link := &mcp.ResourceLink{URI: "dir2mcp:///a<b>.go", Name: "a<b>.go", Title: "t", Description: "d & e", MIMEType: "text/plain", Size: &size}
	for _, isError := range []bool{false, true} {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x <y>\n\u2028"}, link, link},
			StructuredContent: json.RawMessage(`{"a":"\u003c"}`), IsError: isError}
		want, err1 := json.Marshal(res)
		l, err2 := json.Marshal(link)
		if err1 != nil || err2 != nil {
			return false
		}
		if got := appendFrame(nil, "x <y>\n\u2028", [][]byte{l, l}, []byte(`{"a":"\u003c"}`), isError); !bytes.Equal(got, want) {
			return false
		}
	}
	return true
})

// linkKey is a resource link without the fields linkJSON leaves to
// json.Marshal (meta, annotations, icons).
type linkKey struct {
	uri, name, title, desc, mime string
	size                         int64
	sized                        bool
}

// maxLinkCache bounds the remembered link encodings (a few hundred bytes
// each); a full cache starts again empty.
const maxLinkCache = 4096

var linkCache struct {
	sync.Mutex
	m map[linkKey][]byte
}

// linkJSON returns json.Marshal(l), remembered by l's value; nil for a
// link with meta, annotations or icons, or nil l.
func linkJSON(l *mcp.ResourceLink) []byte {
	if l == nil || l.Meta != nil || l.Annotations != nil || l.Icons != nil {
		return nil
	}
	k := linkKey{uri: l.URI, name: l.Name, title: l.Title, desc: l.Description, mime: l.MIMEType}
	if l.Size != nil {
		k.size, k.sized = *l.Size, true
	}
	linkCache.Lock()
	b, ok := linkCache.m[k]
	linkCache.Unlock()
	if ok {
		return b
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil
	}
	linkCache.Lock()
	if linkCache.m == nil || len(linkCache.m) >= maxLinkCache {
		linkCache.m = make(map[linkKey][]byte)
	}
	linkCache.m[k] = b
	linkCache.Unlock()
	return b
}

// appendJSONString appends s as json.Marshal encodes a string: quoted,
// with the quote, the backslash and control characters escaped, '<', '>'
// and '&' as \u003c, \u003e and \u0026, invalid UTF-8 as \ufffd, and
// U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// jsonSafe marks the ASCII bytes json.Marshal writes as they are.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()
