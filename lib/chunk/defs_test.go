package chunk

import "testing"

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
