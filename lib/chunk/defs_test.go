package chunk

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefinedNames(t *testing.T) {
	cases := map[string]string{
		"func (tr *Reader) Next() (*Header, error) {":             "Next",
		"func NewReader(r io.Reader) *Reader {":                   "NewReader",
		"type Header struct {":                                    "Header",
		"    async def fetch_all(self, urls):":                    "fetch_all",
		"class ThreadPoolExecutor(_base.Executor):":               "ThreadPoolExecutor",
		"pub(crate) async fn read_frame(&mut self) -> Result<()>": "read_frame",
		"pub const MAX_SIZE: usize = 10;":                         "MAX_SIZE",
		"impl<T> Display for Wrapper<T> {":                        "",
		"export const handler = async (req, res) => {":            "handler",
		"function chunk(array, size, guard) {":                    "chunk",
		"  hijack: function () {":                                 "hijack",
		"Reply.prototype.hijack = function () {":                  "hijack",
		"module.exports.buildRouting = buildRouting":              "buildRouting",
		"static int parse_header(const char *buf, size_t n)":      "parse_header",
		"    public List<String> getNames(int limit) {":           "getNames",
		"#define BUFSIZE 4096":                                    "BUFSIZE",
		"CREATE OR REPLACE FUNCTION audit_log() RETURNS trigger":  "audit_log",
		"  if (x > 0) {":                                          "",
		"  return foo(bar);":                                      "",
		"    return rmtree(x) or rmtree(y)":                       "",
		"  else if (parse_header(buf, n)) {":                      "",
		"    defer cleanup(ctx)":                                  "",
		"int printf(const char *fmt, ...);":                       "",
	}
	for line, want := range cases {
		x := newLineIndex(line)
		if got := x.definedNames(0, 1); got != want {
			t.Errorf("definedNames(%q) = %q, want %q", line, got, want)
		}
	}
}

func TestCodeContextListsDefinitions(t *testing.T) {
	src := "package p\n\n// Next advances.\nfunc (r *Reader) Next() error {\n\treturn nil\n}\n\nfunc helper() {}\n"
	ps := Code(src, CodeOptions{})
	if len(ps) != 1 || ps[0].Context != "Next helper" {
		t.Fatalf("pieces = %+v, want one with context \"Next helper\"", ps)
	}
}

func TestTextContextIsHeadingTrail(t *testing.T) {
	var b []byte
	b = append(b, "# Guide\n\nIntro.\n\n## Install\n\n"...)
	for i := 0; i < 40; i++ {
		b = append(b, "Some words about installing the tool go here.\n"...)
	}
	b = append(b, "\n### From source\n\nBuild it.\n\n## Usage\n\nRun it.\n\n# Other\n\n"...)
	for i := 0; i < 20; i++ {
		b = append(b, "More words.\n"...)
	}
	ps := Text(string(b), TextOptions{MaxChars: 600})
	want := map[string]bool{"Guide": false, "Guide > Install": false, "Other": false}
	for _, p := range ps {
		if _, ok := want[p.Context]; !ok {
			t.Errorf("piece at line %d: context %q", p.Span.StartLine, p.Context)
		}
		want[p.Context] = true
	}
	for c, seen := range want {
		if !seen {
			t.Errorf("no piece has context %q", c)
		}
	}
}

// definedNameUnguarded is DefinedName without defGuards: the guards may
// only skip patterns that cannot match.
func definedNameUnguarded(line string) string {
	if len(line) > 400 || strings.TrimSpace(line) == "" {
		return ""
	}
	if f := strings.Fields(line); notNames[strings.TrimRight(f[0], "(:;")] {
		return ""
	}
	for _, re := range defPatterns() {
		if m := re.FindStringSubmatch(line); m != nil && !notNames[m[1]] {
			return m[1]
		}
	}
	return ""
}

// TestDefGuardsKeepResults checks the guarded DefinedName against the
// plain patterns on every line of this repository's sources and on
// shapes near each guard's edge.
func TestDefGuardsKeepResults(t *testing.T) {
	lines := []string{
		"\tfunction* gen() {", "pub(in crate::a) fn f(", "extern \"C\" fn g(", "CrEaTe TABLE t (", "create\tindex i",
		"x = {a: function () {", "exports.y = 1", "Foo.prototype.bar =", "static mut COUNT: u8", "#  define X 1",
		"int f(a; b) (c", "int f(a) (c;", "func(x) y()", "macro_rules! m {", "\fclass\fC", "fn\vf(", "type\u00a0T struct",
	}
	filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() == "table.bin" || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && len(b) < 1<<20 {
			lines = append(lines, strings.Split(string(b), "\n")...)
		}
		return nil
	})
	if len(lines) < 10000 {
		t.Fatalf("only %d lines read", len(lines))
	}
	named := 0
	for _, l := range lines {
		want := definedNameUnguarded(l)
		if got := DefinedName(l); got != want {
			t.Errorf("DefinedName(%q) = %q, the patterns alone give %q", l, got, want)
		}
		if want != "" {
			named++
		}
	}
	if named < 1000 {
		t.Errorf("only %d of %d lines define a name: the comparison proves little", named, len(lines))
	}
}
