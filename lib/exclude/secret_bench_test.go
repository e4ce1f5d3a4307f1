package exclude

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// gorootSrc returns $(go env GOROOT)/src, or "" when it is not there.
func gorootSrc() string {
	root := os.Getenv("GOROOT")
	if root == "" {
		if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
			root = strings.TrimSpace(string(out))
		}
	}
	if root == "" {
		return ""
	}
	src := filepath.Join(root, "src")
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		return ""
	}
	return src
}

// gorootTextExts are the text files of the measurement corpus.
var gorootTextExts = map[string]bool{
	".go": true, ".s": true, ".md": true, ".txt": true, ".html": true, ".json": true,
	".yaml": true, ".yml": true, ".toml": true, ".xml": true, ".csv": true, ".mod": true, ".sum": true,
}

type corpusFile struct {
	rel  string
	data []byte
}

var (
	gorootOnce  sync.Once
	gorootFiles []corpusFile
	gorootBytes int64
)

// gorootCorpus loads the text files of GOROOT/src up to 4 MB each.
func gorootCorpus(tb testing.TB) []corpusFile {
	src := gorootSrc()
	if src == "" {
		tb.Skip("GOROOT/src not found")
	}
	gorootOnce.Do(func() {
		filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !gorootTextExts[filepath.Ext(p)] {
				return nil
			}
			if fi, err := d.Info(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 4<<20 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(src, p)
			gorootFiles = append(gorootFiles, corpusFile{filepath.ToSlash(rel), data})
			gorootBytes += int64(len(data))
			return nil
		})
	})
	return gorootFiles
}

// realisticGoFile returns a large standard-library source file, or a
// synthetic one when GOROOT is absent.
func realisticGoFile() []byte {
	if src := gorootSrc(); src != "" {
		if b, err := os.ReadFile(filepath.Join(src, "net", "http", "server.go")); err == nil {
			return b
		}
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 128<<10; i++ {
		fmt.Fprintf(&sb, "// handleToken%d parses the token of a request.\nfunc handleToken%d(w http.ResponseWriter, r *http.Request) error {\n\ttoken := r.Header.Get(\"X-Token\")\n\tif token == \"\" {\n\t\treturn errMissingToken\n\t}\n\treturn nil\n}\n\n", i, i)
	}
	return []byte(sb.String())
}

func BenchmarkSecretMatch(b *testing.B) {
	content := realisticGoFile()
	e := Default()
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.SecretMatch(content)
	}
}

// BenchmarkSecretMatchRegexp is the baseline: the default patterns run as
// plain regexps over the same file.
func BenchmarkSecretMatchRegexp(b *testing.B) {
	content := realisticGoFile()
	var res []*regexp.Regexp
	for _, p := range DefaultSecretPatterns {
		res = append(res, regexp.MustCompile(p))
	}
	b.SetBytes(int64(len(content)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, re := range res {
			if re.Match(content) {
				break
			}
		}
	}
}

// BenchmarkSecretMatchGOROOT runs the default engine over every text file of
// GOROOT/src and reports how many files each rule excludes (first match).
func BenchmarkSecretMatchGOROOT(b *testing.B) {
	benchCorpus(b, DefaultSecretPatterns)
}

// BenchmarkSecretMatchGOROOTSpec is the same with SpecSecretPatterns.
func BenchmarkSecretMatchGOROOTSpec(b *testing.B) {
	benchCorpus(b, SpecSecretPatterns)
}

func benchCorpus(b *testing.B, patterns []string) {
	files := gorootCorpus(b)
	e, err := New(nil, patterns)
	if err != nil {
		b.Fatal(err)
	}
	counts := make([]int, len(patterns))
	b.SetBytes(gorootBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(counts)
		for _, f := range files {
			if idx, ok := e.SecretMatch(f.data); ok {
				counts[idx]++
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(files)), "files")
	for i, n := range counts {
		b.ReportMetric(float64(n), fmt.Sprintf("p%d-files", i))
	}
}

// TestSecretMatchGOROOTAgreesWithRegexp compares the engine with plain
// regexps, rule by rule, on a sample of real files.
func TestSecretMatchGOROOTAgreesWithRegexp(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs plain regexps over GOROOT files")
	}
	files := gorootCorpus(t)
	patterns := append(append([]string{}, DefaultSecretPatterns...), SpecSecretPatterns[1])
	for i, p := range patterns {
		e, err := New(nil, []string{p})
		if err != nil {
			t.Fatal(err)
		}
		naive := regexp.MustCompile(p)
		hits := 0
		for j := i; j < len(files); j += 13 {
			f := files[j]
			_, got := e.SecretMatch(f.data)
			if want := naive.Match(f.data); got != want {
				t.Errorf("pattern %d on %s: engine %v, regexp %v", i, f.rel, got, want)
			}
			if got {
				hits++
			}
		}
		t.Logf("pattern %d: %d hits in the sample", i, hits)
	}
}
