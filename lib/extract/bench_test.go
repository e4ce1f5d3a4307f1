package extract

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// gorootFiles reads files under GOROOT whose names end in ext, up to limit bytes.
func gorootFiles(b *testing.B, ext string, limit int) [][]byte {
	b.Helper()
	var files [][]byte
	total := 0
	filepath.WalkDir(runtime.GOROOT(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || total >= limit {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ext) {
			if data, err := os.ReadFile(p); err == nil {
				files = append(files, data)
				total += len(data)
			}
		}
		return nil
	})
	if total == 0 {
		b.Skipf("no %s files under GOROOT", ext)
	}
	return files
}

func benchRawText(b *testing.B, files [][]byte, docType string) {
	n := 0
	for _, f := range files {
		n += len(f)
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			if _, err := RawText(f, docType); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRawTextGoFiles extracts real Go files one by one.
func BenchmarkRawTextGoFiles(b *testing.B) {
	benchRawText(b, gorootFiles(b, ".go", 16<<20), record.DocCode)
}

func BenchmarkRawTextHTML(b *testing.B) {
	benchRawText(b, gorootFiles(b, ".html", 8<<20), record.DocHTML)
}

func BenchmarkRawTextWindows1252(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 8<<20 {
		sb.WriteString("Caf\xe9 cr\xe8me br\xfbl\xe9e \x96 na\xefve r\xe9sum\xe9\r\n")
	}
	benchRawText(b, [][]byte{[]byte(sb.String())}, record.DocText)
}
