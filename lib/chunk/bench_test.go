package chunk

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gorootCorpus concatenates files under GOROOT whose names end in ext, up
// to limit bytes, and also returns them one by one.
func gorootCorpus(b *testing.B, ext string, limit int) (string, []string) {
	b.Helper()
	root := runtime.GOROOT()
	var all strings.Builder
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || all.Len() >= limit {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ext) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err == nil {
			all.Write(data)
			files = append(files, string(data))
		}
		return nil
	})
	if all.Len() == 0 {
		b.Skipf("no %s files under GOROOT %q", ext, root)
	}
	return all.String(), files
}

func BenchmarkCodeLargeGoFile(b *testing.B) {
	src, _ := gorootCorpus(b, ".go", 16<<20)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		Code(src, CodeOptions{})
	}
}

// BenchmarkCodeGoFiles chunks real files one by one, as the indexer does.
func BenchmarkCodeGoFiles(b *testing.B) {
	src, files := gorootCorpus(b, ".go", 16<<20)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		for _, f := range files {
			Code(f, CodeOptions{})
		}
	}
}

// BenchmarkTextLargeMarkdown chunks GOROOT's markdown, repeated to 16 MB.
func BenchmarkTextLargeMarkdown(b *testing.B) {
	md, _ := gorootCorpus(b, ".md", 16<<20)
	md = strings.Repeat(md+"\n", (16<<20)/len(md)+1)
	b.SetBytes(int64(len(md)))
	b.ResetTimer()
	for b.Loop() {
		Text(md, TextOptions{})
	}
}

func BenchmarkTokensEstimate(b *testing.B) {
	src, _ := gorootCorpus(b, ".go", 4<<20)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		TokensEstimate(src)
	}
}
