package scan

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// gorootSrc returns $(go env GOROOT)/src, or skips the benchmark.
func gorootSrc(b *testing.B) string {
	root := os.Getenv("GOROOT")
	if root == "" {
		if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
			root = strings.TrimSpace(string(out))
		}
	}
	src := filepath.Join(root, "src")
	if fi, err := os.Stat(src); root == "" || err != nil || !fi.IsDir() {
		b.Skip("GOROOT/src not found")
	}
	return src
}

func benchOptions(root string) Options {
	return Options{
		Root:      root,
		StateDir:  filepath.Join(b2tmp, "state"),
		Gitignore: true,
		SizeCaps:  func(string) int64 { return 20 << 20 }, // SPEC §16.2 max_file_mb: 20
	}
}

var b2tmp = os.TempDir()

// BenchmarkWalk walks GOROOT/src with the default exclusion engine: cold
// (nothing known: every file read, hashed and scanned for secrets; the page
// cache is warm after the first run) and warm (everything known and
// unchanged: the no-op rescan). It reports files/s and MB/s of file data
// covered, and CPU time per walk (the machine may be shared).
func BenchmarkWalk(b *testing.B) {
	src := gorootSrc(b)
	var known map[string]Known
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			opt := benchOptions(src)
			if mode == "warm" {
				if known == nil { // run alone: learn the tree first
					r, err := tryWalk(benchOptions(src))
					if err != nil {
						b.Fatal(err)
					}
					known = knownFrom(r.docs)
				}
				opt.Known = known
				b.ResetTimer()
			}
			var docs []record.Document
			var st Stats
			cpu0 := cpuTime()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				docs = docs[:0]
				var err error
				st, err = Walk(context.Background(), opt, func(d record.Document) error {
					docs = append(docs, d)
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			elapsed := time.Since(start).Seconds()
			cpu := (cpuTime() - cpu0).Seconds()
			if mode == "cold" {
				known = knownFrom(docs)
			} else if st.Unchanged != st.Scanned {
				b.Fatalf("warm walk: %+v", st)
			}
			n := float64(b.N)
			b.ReportMetric(float64(st.Scanned)*n/elapsed, "files/s")
			b.ReportMetric(float64(st.Bytes)*n/elapsed/1e6, "MB/s")
			b.ReportMetric(float64(st.BytesRead)/1e6, "MB-read/op")
			b.ReportMetric(cpu/n*1e3, "cpu-ms/op")
			b.ReportMetric(float64(st.Scanned), "files")
			b.ReportMetric(float64(st.Skipped), "skipped")
		})
	}
}
