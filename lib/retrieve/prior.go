package retrieve

import (
	"path"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
)

// testPrior scales the fused score of test files. A question about what the
// code does is best answered by the implementation; tests repeat its names
// and vocabulary and would otherwise crowd the top. Queries that mention
// tests get no demotion.
const testPrior = 0.6

// IsTestFile reports whether a path looks like a test, fixture or example
// file in common language conventions.
func IsTestFile(rel string) bool {
	base := path.Base(rel)
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(base, "_test.py"),
		strings.Contains(base, ".test."), strings.Contains(base, ".spec."),
		strings.HasSuffix(base, "Test.java"), strings.HasSuffix(base, "Tests.cs"),
		strings.HasSuffix(base, "_spec.rb"):
		return true
	}
	// The directories of rel (a clean slash path), without allocating:
	// fusion asks this of every candidate of every search.
	dirs := rel[:max(strings.LastIndexByte(rel, '/'), 0)]
	for dirs != "" {
		dir, rest, _ := strings.Cut(dirs, "/")
		switch dir {
		case "test", "tests", "__tests__", "testdata", "spec", "fixtures":
			return true
		}
		dirs = rest
	}
	return false
}

// mentionsTests reports whether the query is about tests.
func mentionsTests(q *lexical.Query) bool {
	for _, t := range q.Terms {
		if strings.HasPrefix(t, "test") || strings.HasPrefix(t, "spec") || t == "fixture" || t == "fixtures" {
			return true
		}
	}
	return false
}
