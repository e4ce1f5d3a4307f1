package retrieve

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

func spec(q string, code bool) focusSpec {
	p := lexical.Parse(q)
	f := newFocusSpec(p, nil)
	f.code = code
	return f
}

func TestFocusDocCommentCitesItsDeclaration(t *testing.T) {
	src := strings.Join([]string{
		"use std::io;", // 10
		"",
		"/// Returns an iterator over the lines of this reader.",
		"///",
		"/// Each line is returned without its newline.",
		"pub fn lines(self) -> Lines<Self> {", // 15
		"    Lines { buf: self }",
		"}",
	}, "\n")
	_, sp, _ := focus(src, record.Lines(10, 17), nil, spec("iterator over the lines of a reader", true))
	if sp.StartLine > 12 || sp.EndLine < 15 {
		t.Errorf("span %+v: want the doc comment (12) through the fn line (15)", sp)
	}
}

func TestFocusBodyCitesItsDefinition(t *testing.T) {
	src := strings.Join([]string{
		"import os", // 1
		"",
		"def rmtree(path, ignore_errors=False):",
		`    """Recursively delete a directory tree."""`,
		"    for root, dirs, files in os.walk(path):",
		"        for name in files:",
		"            os.unlink(os.path.join(root, name))",
		"    os.rmdir(path)", // 8
	}, "\n")
	snippet, sp, _ := focus(src, record.Lines(1, 8), nil, spec("unlink every file while walking", true))
	if sp.StartLine != 3 || sp.EndLine < 7 {
		t.Errorf("span %+v: want the def line (3) through the match (7)", sp)
	}
	if !strings.Contains(snippet, "os.unlink") {
		t.Errorf("snippet %q lost the match", snippet)
	}
}

func TestFocusNameStartsAtDefinition(t *testing.T) {
	src := strings.Join([]string{
		"def helper():", // 1
		"    return rmtree(x) or rmtree(y) or rmtree(z)",
		"",
		"# Delete a tree.",
		"def rmtree(path):", // 5
		"    pass",
	}, "\n")
	snippet, sp, _ := focus(src, record.Lines(1, 6), nil, spec("rmtree", true))
	if sp.StartLine != 4 || !strings.HasPrefix(snippet, "# Delete a tree.\ndef rmtree") {
		t.Errorf("span %+v snippet %q: want the comment and the def line first", sp, snippet)
	}
}

func TestFocusProseIsNotWidened(t *testing.T) {
	var lines []string
	for i := 0; i < 30; i++ {
		lines = append(lines, "Filler text about nothing in particular.")
	}
	lines[20] = "The dome closes when the wind is strong."
	_, sp, _ := focus(strings.Join(lines, "\n"), record.Lines(1, 30), nil, spec("when does the dome close", false))
	if sp.StartLine < 19 || sp.EndLine > 23 {
		t.Errorf("span %+v: want a window around line 21", sp)
	}
}

// Skipping the lines that hold no term's core finds, line for line, the
// terms matching every line term by term finds: over Go sources, prose
// with inflections ("entries" → entry), upper case, identifiers and
// non-ASCII text whose case folding yields ASCII (the Kelvin sign).
func TestCoveredPrefilterMatchesEveryLine(t *testing.T) {
	texts := []string{
		"Entries are ADVANCED.\nThe entry advances; the entries' advancement\nnextEntry := tr.Next()\nNEXT_ENTRY_SIZE = 4",
		"Ünïcödé line\n\u212aelvin keys and \u212aEYS\nſecret ſtuff\nplain line\n\n   \nHTTPServer serves HTTP/2 requests quickly",
		"func (r *Reader) ReadRune() (rune, int, error)\n// ReadRune reads a single UTF-8 encoded Unicode character\nvar readRunes = 3",
	}
	for _, name := range []string{"archive/tar/reader.go", "net/http/server.go", "strings/strings.go", "unicode/tables.go"} {
		if b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", name)); err == nil {
			texts = append(texts, string(b))
		}
	}
	queries := []string{"advances to the next entry in the tar archive", "entries", "ReadRune reads a single UTF-8 encoded Unicode character",
		"kelvin keys", "secret", "HTTP server serves requests quickly", "y", "a b c", "ünïcödé", "serve HTTP/2 over TLS with h2", "io"}
	for _, q := range queries {
		f := spec(q, false)
		for ti, text := range texts {
			lines := strings.Split(text, "\n")
			got := f.covered(lines)
			for i, ln := range lines {
				if want := f.terms.Covered(ln); got[i] != want {
					t.Fatalf("query %q, text %d line %d %q: covered %b, Covered %b (prefilter %v, cores %q)", q, ti, i, ln, got[i], want, f.prefilter, f.cores)
				}
			}
		}
	}
}
