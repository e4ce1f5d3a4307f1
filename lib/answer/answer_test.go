package answer

import (
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

func TestExtractiveAnswerQuotesAndCites(t *testing.T) {
	hits := []retrieve.Hit{
		{ChunkID: 1, RelPath: "docs/dome.md", DocType: record.DocMarkdown, Span: record.Lines(10, 12),
			Snippet: "The weather station raises an alarm.\nWhen wind gusts exceed forty kilometres per hour the dome must be closed at once."},
		{ChunkID: 2, RelPath: "src/dome.go", DocType: record.DocCode, Span: record.Lines(3, 5),
			Snippet: "func CloseDome(windKmh int) bool {\n\treturn windKmh > 40\n}"},
		{ChunkID: 3, RelPath: "notes/misc.txt", DocType: record.DocText, Span: record.Lines(1, 1),
			Snippet: "Unrelated note about the budget review."},
	}
	ans, cites := extractive("when must the dome be closed?", hits, 4000)
	if !strings.Contains(ans, "dome must be closed at once. [docs/dome.md:L11-L11]") {
		t.Errorf("answer does not quote the sentence with its own lines:\n%s", ans)
	}
	if !strings.Contains(ans, "[src/dome.go:L3-L5]\n```\nfunc CloseDome") {
		t.Errorf("code is not quoted as a block with its citation:\n%s", ans)
	}
	if strings.Contains(ans, "budget") {
		t.Errorf("unrelated sentence quoted:\n%s", ans)
	}
	if len(cites) != 2 || cites[0].RelPath != "docs/dome.md" || cites[0].Span != record.Lines(11, 11) || cites[1].ChunkID != 2 {
		t.Errorf("citations %+v", cites)
	}
	for _, c := range cites {
		if !strings.Contains(ans, retrieve.Cite(c.RelPath, c.Span)) {
			t.Errorf("citation %+v not in the answer", c)
		}
	}
}

func TestNoHitsSaysSo(t *testing.T) {
	ans, cites := extractive("anything", nil, 4000)
	if len(cites) != 0 || !strings.Contains(ans, "nothing that matches") {
		t.Errorf("%q %v", ans, cites)
	}
}

func TestBudgetBoundsTheAnswer(t *testing.T) {
	long := strings.Repeat("The dome closes when wind is strong. ", 40)
	var hits []retrieve.Hit
	for i := range 5 {
		hits = append(hits, retrieve.Hit{ChunkID: int64(i), RelPath: "a.md", DocType: record.DocMarkdown, Span: record.Lines(1, 1), Snippet: long})
	}
	ans, _ := extractive("dome wind", hits, 300)
	if len(ans) > 300+200 {
		t.Errorf("answer of %d bytes exceeds the budget", len(ans))
	}
}
