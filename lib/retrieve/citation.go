package retrieve

import (
	"fmt"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// Cite renders a citation per SPEC §9.3: [path:L10-L20] for lines,
// [path#p=3] for pages, [path@t=01:05-01:35] for time ranges.
func Cite(relPath string, sp record.Span) string {
	switch sp.Kind {
	case record.SpanLines:
		return "[" + relPath + ":L" + strconv.Itoa(sp.StartLine) + "-L" + strconv.Itoa(sp.EndLine) + "]"
	case record.SpanPage:
		return "[" + relPath + "#p=" + strconv.Itoa(sp.Page) + "]"
	case record.SpanTime:
		return fmt.Sprintf("[%s@t=%s-%s]", relPath, clock(sp.StartMs), clock(sp.EndMs))
	}
	return "[" + relPath + "]"
}

// clock formats milliseconds as mm:ss (h:mm:ss past an hour).
func clock(ms int64) string {
	s := ms / 1000
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
