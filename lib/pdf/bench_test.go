package pdf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkExtract measures text-layer extraction throughput (MB/s of PDF
// input) on the committed groff/Ghostscript fixture, a generated 100-page
// PDF, and any PDFs in $DIR2MCP_BENCH_PDF_DIR (e.g. the output of
// shared/fixtures/make-fixtures.sh).
func BenchmarkExtract(b *testing.B) {
	inputs := map[string][]byte{"digital": fixture(b, "digital.pdf")}
	pages := make([]string, 100)
	for i := range pages {
		pages[i] = "BT /F1 11 Tf 72 720 Td 14 TL " + strings.Repeat("(The quick brown fox jumps over the lazy dog 0123456789.)' ", 45) + "ET"
	}
	inputs["generated-100p"] = buildPDF(pages...)
	if dir := os.Getenv("DIR2MCP_BENCH_PDF_DIR"); dir != "" {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil {
				inputs[filepath.Base(p)] = data
			}
		}
	}
	for name, data := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				Extract(bytes.NewReader(data), int64(len(data)), Options{})
			}
		})
	}
}
