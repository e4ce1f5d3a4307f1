package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSecureResult is what the controls add to a search result of
// 10 hits with 1 KB snippets (one holding a key): masking every string,
// counting, and the scope check.
func BenchmarkSecureResult(b *testing.B) {
	s := indexedServer(b, map[string]string{"a.txt": "x\n"}, nil)
	s.MCP()
	snippet := strings.Repeat("func reconcile(entries []Entry) error { return nil } // ledger\n", 16)
	ctx := corpus.WithScope(context.Background(), &corpus.Scope{PathPrefixes: []string{"src/"}})
	b.ReportAllocs()
	for b.Loop() {
		res := retrieve.Result{Query: "reconcile ledger", K: 10, Hits: make([]retrieve.Hit, 10)}
		for i := range res.Hits {
			res.Hits[i] = retrieve.Hit{ChunkID: int64(i), RelPath: "src/ledger.go", Snippet: snippet, Span: record.Lines(1, 16)}
		}
		res.Hits[3].Snippet += "key " + fakeKey
		out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summarizeHits(res)}}, StructuredContent: res}
		if n := s.secureResult(ctx, out); n != 1 {
			b.Fatalf("redactions %d", n)
		}
	}
}
