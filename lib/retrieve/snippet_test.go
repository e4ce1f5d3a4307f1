package retrieve

import (
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
