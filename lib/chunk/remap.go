package chunk

import (
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/srcmap"
)

// Remap rewrites the lines spans of pieces of a mapped representation into
// source lines and returns, for each piece, the map of its own lines (see
// srcmap.Map.Span and Cut): a span covers exactly the source lines its
// piece's text came from, start ≤ end. Lines outside the map clamp to its
// ends. A nil map (the chunked text is the source) leaves the pieces alone
// and returns nil; a piece whose span is of another kind gets a nil map.
func Remap(pieces []Piece, m srcmap.Map) []srcmap.Map {
	if m == nil {
		return nil
	}
	maps := make([]srcmap.Map, len(pieces))
	for i := range pieces {
		p := &pieces[i]
		if p.Span.Kind != record.SpanLines {
			continue
		}
		maps[i] = m.Cut(p.Span.StartLine, p.Col, p.Text)
		p.Span = m.Span(p.Span.StartLine, p.Span.EndLine)
	}
	return maps
}
