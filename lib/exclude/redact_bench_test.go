package exclude

import (
	"fmt"
	"testing"
)

// BenchmarkRedactGOROOT masks every text file of GOROOT/src with the
// default redaction patterns and reports how many files had a span masked
// (false positives: the standard library holds no live credentials).
func BenchmarkRedactGOROOT(b *testing.B) {
	files := gorootCorpus(b)
	r := defaultRedactor(b)
	b.SetBytes(gorootBytes)
	b.ResetTimer()
	masked, spans := 0, 0
	for i := 0; i < b.N; i++ {
		masked, spans = 0, 0
		for _, f := range files {
			if sp := r.spans(f.data); len(sp) > 0 {
				masked++
				spans += len(sp)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(masked), "masked-files")
	b.ReportMetric(float64(spans), "masked-spans")
}

// TestRedactGOROOTFalsePositives lists, per kind, the standard library
// files the default patterns mask, and bounds them.
func TestRedactGOROOTFalsePositives(t *testing.T) {
	if testing.Short() {
		t.Skip("reads all of GOROOT/src")
	}
	files := gorootCorpus(t)
	total := 0
	for _, k := range CredentialKinds {
		r, err := NewRedactor("p", []string{k.Pattern}, DefaultReplacement)
		if err != nil {
			t.Fatal(err)
		}
		var hit []string
		for _, f := range files {
			if sp := r.spans(f.data); len(sp) > 0 {
				hit = append(hit, fmt.Sprintf("%s(%d)", f.rel, len(sp)))
			}
		}
		if len(hit) > 0 {
			t.Logf("%s: %d files %v", k.Name, len(hit), hit[:min(len(hit), 8)])
		}
		total += len(hit)
	}
	t.Logf("%d of %d files have a masked span", total, len(files))
	if limit := len(files) / 100; total > limit {
		t.Errorf("default redaction masks spans in %d files of the Go standard library, want at most 1%% (%d)", total, limit)
	}
}

// BenchmarkCompileBuiltinRules is what compiling the built-in patterns
// costs: as redaction rules (a server's first masking, or its warm-up) and
// as secret exclusions (before a server listens).
func BenchmarkCompileBuiltinRules(b *testing.B) {
	all := append(append([]string{}, DefaultSecretPatterns...), DefaultRedactPatterns...)
	b.Run("redact", func(b *testing.B) {
		for b.Loop() {
			for _, p := range all {
				if _, err := compileRedactRules(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("secret", func(b *testing.B) {
		for b.Loop() {
			for _, p := range DefaultSecretPatterns {
				if _, err := compileSecret(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
