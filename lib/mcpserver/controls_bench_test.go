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
// 10 hits with 1 KB snippets: masking every string, counting, and the
// scope check; "clean" holds no credential (the common case, served as
// encoded), "key" holds one in one snippet.
func BenchmarkSecureResult(b *testing.B) {
	s := indexedServer(b, map[string]string{"a.txt": "x\n"}, nil)
	s.MCP()
	snippet := strings.Repeat("func reconcile(entries []Entry) error { return nil } // ledger\n", 16)
	ctx := corpus.WithScope(context.Background(), &corpus.Scope{PathPrefixes: []string{"src/"}})
	for _, keys := range []int{0, 1} {
		b.Run(map[int]string{0: "clean", 1: "key"}[keys], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res := retrieve.Result{Query: "reconcile ledger", K: 10, Hits: make([]retrieve.Hit, 10)}
				for i := range res.Hits {
					res.Hits[i] = retrieve.Hit{ChunkID: int64(i), RelPath: "src/ledger.go", Snippet: snippet, Span: record.Lines(1, 16)}
				}
				if keys > 0 {
					res.Hits[3].Snippet += "key " + fakeKey
				}
				out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summarizeHits(res)}}, StructuredContent: res}
				if n := s.secureResult(ctx, out); n != keys {
					b.Fatalf("redactions %d", n)
				}
			}
		})
	}
}
