package local

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/embed"
)

// benchChunks returns ~4 KB chunks of real Go source (code) or of the
// doc comments of the Go tree (prose).
func benchChunks(b *testing.B, kind string) []embed.Input {
	b.Helper()
	var ins []embed.Input
	for _, f := range []string{"net/http/server.go", "strings/strings.go", "archive/tar/reader.go", "encoding/json/decode.go"} {
		raw, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		if err != nil {
			b.Skipf("Go source not available: %v", err)
		}
		var buf strings.Builder
		for line := range strings.SplitSeq(string(raw), "\n") {
			if kind == "text" {
				c, ok := strings.CutPrefix(strings.TrimSpace(line), "//")
				if !ok {
					continue
				}
				line = c
			}
			buf.WriteString(line)
			buf.WriteByte('\n')
			if buf.Len() >= 4096 {
				ins = append(ins, embed.Input{Text: buf.String(), Kind: kind, Path: "src/" + f, Lang: "go"})
				buf.Reset()
			}
		}
	}
	return ins
}

func benchmarkEmbed(b *testing.B, kind string) {
	ins := benchChunks(b, kind)
	e := New()
	if _, err := e.Embed(context.Background(), ins[:1]); err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, in := range ins {
		n += int64(len(in.Text))
	}
	b.SetBytes(n)
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(context.Background(), ins); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbed reports MB/s of chunk text embedded on one core.
func BenchmarkEmbed(b *testing.B) {
	b.Run("code", func(b *testing.B) { benchmarkEmbed(b, "code") })
	b.Run("prose", func(b *testing.B) { benchmarkEmbed(b, "text") })
}

func BenchmarkEncode(b *testing.B) {
	ins := benchChunks(b, "text")
	_, tok, err := DefaultTable()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, in := range ins {
		n += int64(len(in.Text))
	}
	b.SetBytes(n)
	var ids []int32
	for b.Loop() {
		for _, in := range ins {
			ids = tok.AppendEncode(ids[:0], in.Text)
		}
	}
}

func BenchmarkLoadTable(b *testing.B) {
	for b.Loop() {
		t, err := ParseTable(tableFile)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewTokenizer(t.Pieces, t.Scores); err != nil {
			b.Fatal(err)
		}
	}
}
