package embedders

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// BenchmarkOfflineEmbed reports MB/s of Go source embedded on one core by
// the default offline embedder (token table blended with feature hashing),
// in 4 KB chunks. Run with -cpu 1.
func BenchmarkOfflineEmbed(b *testing.B) {
	var ins []embed.Input
	for _, f := range []string{"net/http/server.go", "strings/strings.go", "archive/tar/reader.go", "encoding/json/decode.go"} {
		raw, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		if err != nil {
			b.Skipf("Go source not available: %v", err)
		}
		for len(raw) > 0 {
			n := min(4096, len(raw))
			ins = append(ins, embed.Input{Text: string(raw[:n]), Kind: record.KindCode, Path: "src/" + f, Lang: "go"})
			raw = raw[n:]
		}
	}
	embs, err := Open(config.Default())
	if err != nil {
		b.Fatal(err)
	}
	e := embs[record.KindCode]
	var n int64
	for _, in := range ins {
		n += int64(len(in.Text))
	}
	b.SetBytes(n)
	for b.Loop() {
		if _, err := e.Embed(context.Background(), ins); err != nil {
			b.Fatal(err)
		}
	}
}
