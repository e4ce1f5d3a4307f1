package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/exclude"
)

// tree12 is a root of 12 top-level directories with one source file each,
// plus what files adds.
func tree12(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{}
	for i := 0; i < 12; i++ {
		all[fmt.Sprintf("d%02d/a.c", i)] = "int x;\n"
	}
	for k, v := range files {
		all[k] = v
	}
	writeTree(t, dir, all)
	return dir
}

// TestIgnoreHintNamesRuleAndOverride: a .gitignore ending in "/*" (as in
// Debian's linux-source) leaves nothing to index; the hint names the file,
// line and pattern and how to turn .gitignore handling off.
func TestIgnoreHintNamesRuleAndOverride(t *testing.T) {
	dir := tree12(t, map[string]string{".gitignore": "# build output\n*.o\n\n/*\n", "README": "hi\n", ".git/HEAD": "ref\n"})
	r := walk(t, Options{Root: dir, Gitignore: true})
	hint := r.stats.IgnoreHint()
	for _, want := range []string{".gitignore:4: /* (14)", "14 of 14 entries", "0 files scanned", "ingest.gitignore: false", "DIR2MCP_INGEST_GITIGNORE=false"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint lacks %q:\n%s", want, hint)
		}
	}
	if r := walk(t, Options{Root: dir}); r.stats.IgnoreHint() != "" || r.stats.Scanned != 14 {
		t.Errorf("gitignore off: %d scanned, hint %q", r.stats.Scanned, r.stats.IgnoreHint())
	}
}

// TestIgnoreHintExcludes: ingest.ignore and security.path_excludes that
// pass over ≥ 90% of the entries are named with their override, even when
// a file or two is still scanned.
func TestIgnoreHintExcludes(t *testing.T) {
	dir := tree12(t, map[string]string{"README": "hi\n"})
	hint := walk(t, Options{Root: dir, Ignore: []string{"*.md", "d*/"}}).stats.IgnoreHint()
	if !strings.Contains(hint, "ingest.ignore[1]: d*/ (12)") || !strings.Contains(hint, "12 of 13 entries (1 files scanned)") || !strings.Contains(hint, "remove the pattern from ingest.ignore") {
		t.Errorf("ingest.ignore hint: %s", hint)
	}
	ex, err := exclude.New([]string{"d0*/", "d1*/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hint = walk(t, Options{Root: dir, Exclude: ex}).stats.IgnoreHint()
	if !strings.Contains(hint, "security.path_excludes: d0*/ (10)") || !strings.Contains(hint, "security.path_excludes: d1*/ (2)") || !strings.Contains(hint, "remove the pattern from security.path_excludes") {
		t.Errorf("path_excludes hint: %s", hint)
	}
}

// TestIgnoreHintQuiet: ordinary ignoring (built-in list, build output, a
// vendored directory) or a small tree mostly ignored but with files left
// gets no hint.
func TestIgnoreHintQuiet(t *testing.T) {
	dir := tree12(t, map[string]string{".gitignore": "*.o\nvendor/\n", "x.o": "", "vendor/v.c": "", "node_modules/m.js": "", ".git/HEAD": ""})
	if r := walk(t, Options{Root: dir, Gitignore: true}); r.stats.IgnoreHint() != "" || len(r.stats.IgnoredBy) != 2 {
		t.Errorf("normal tree: %+v, hint %q", r.stats.IgnoredBy, r.stats.IgnoreHint())
	}
	small := t.TempDir()
	writeTree(t, small, map[string]string{".gitignore": "/*\n!keep.txt\n", "a/x.c": "", "b/y.c": "", "keep.txt": "k\n"})
	if r := walk(t, Options{Root: small, Gitignore: true}); r.stats.IgnoreHint() != "" || r.stats.Scanned != 1 {
		t.Errorf("small tree, one file kept: %d scanned, hint %q", r.stats.Scanned, r.stats.IgnoreHint())
	}
}
