package chunk

import "github.com/dir2mcp/dir2mcp/lib/record"

// Remap rewrites the lines spans of pieces through lineMap, which maps
// chunked-text line i (0-based index) to a 1-based source line, as
// extract.Result.LineMap does. A span becomes [lineMap[start-1],
// lineMap[end-1]] (the end raised to the start if the map decreases); lines
// outside the map clamp to its ends. A nil or empty lineMap and spans of
// other kinds are left alone.
func Remap(pieces []Piece, lineMap []int) {
	if len(lineMap) == 0 {
		return
	}
	at := func(line int) int {
		return lineMap[min(max(line, 1), len(lineMap))-1]
	}
	for i := range pieces {
		sp := &pieces[i].Span
		if sp.Kind != record.SpanLines {
			continue
		}
		start, end := at(sp.StartLine), at(sp.EndLine)
		sp.StartLine, sp.EndLine = start, max(end, start)
	}
}
