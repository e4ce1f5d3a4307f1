package local

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestSplitIdentifier(t *testing.T) {
	cases := map[string][]string{
		"parseHTTPRequest_v2": {"parse", "HTTP", "Request", "v", "2"},
		"HasPrefix":           {"Has", "Prefix"},
		"snake_case_name":     {"snake", "case", "name"},
		"__init__":            {"init"},
		"sha256Sum":           {"sha", "256", "Sum"},
		"URL":                 {"URL"},
		"ReadDir":             {"Read", "Dir"},
		"x":                   {"x"},
		"größeÄnderung":       {"größe", "Änderung"},
	}
	for in, want := range cases {
		if got := SplitIdentifier(in); !slices.Equal(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodeText(t *testing.T) {
	cases := []struct{ path, text, want string }{
		{"src/archive/tar/reader.go", "func (tr *Reader) Next() (*Header, error) {\n\treturn nil, tr.err\n}",
			"src archive tar reader tr reader next header tr"},
		{"", "// Copy copies bytes until EOF.\nn, err := io.Copy(dst, src)",
			"copy copies bytes until eof n io copy dst src"},
		{"lib/http_client.py", "def get_user_name(self): pass", "lib http client get user name"},
		{"Makefile", "build:\n\tgo build ./...", "makefile build build"},
		{"", "", ""},
		{"", "{}();", ""},
	}
	for _, c := range cases {
		if got := CodeText(c.path, c.text); got != c.want {
			t.Errorf("CodeText(%q, %q) = %q, want %q", c.path, c.text, got, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	cases := map[string]string{
		"  a\t\tb\n c  ": "a b c",
		"":               "",
		" \n\t ":         "",
		"a\u00a0\u3000b": "a b",
		"one":            "one",
	}
	for in, want := range cases {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQueryText(t *testing.T) {
	cases := []struct{ kind, in, want string }{
		{"code", "where is HasPrefix used", "where is has prefix used"},
		{"code", "read_file(path)  errors", "read file(path) errors"},
		{"code", "HTTP server", "HTTP server"},
		{"text", "HasPrefix  docs", "HasPrefix docs"},
	}
	for _, c := range cases {
		if got := QueryText(c.kind, c.in); got != c.want {
			t.Errorf("QueryText(%q, %q) = %q, want %q", c.kind, c.in, got, c.want)
		}
	}
}

// TestCodeTextMatchesScript checks CodeText against its JS twin
// (scripts/distill/lib/codetext.js), which prepared the code the table was
// fitted on.
func TestCodeTextMatchesScript(t *testing.T) {
	var in [][2]string
	for _, s := range tokenizerCorpus(t, 600) {
		in = append(in, [2]string{"", s})
	}
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"get", "HTTP", "Server", "x", "2", "ID", "url", "_", "__", "A", "b", "Größe", "日本", "²", "Über", "9z", "ǅ", "ʰ"}
	for range 400 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		in = append(in, [2]string{[]string{"", "a/b.go", "lib/x_y/ZipReader.ts", ".bashrc", "dir.v2/file", "Makefile"}[r.IntN(6)], b.String()})
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := json.Unmarshal(runNode(t, raw, "codetext.js"), &want); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, p := range in {
		if got := CodeText(p[0], p[1]); got != want[i] {
			bad++
			if bad <= 10 {
				t.Errorf("CodeText(%q, %q)\n got %q\nwant %q", p[0], p[1], got, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d differ from codetext.js", bad, len(in))
	}
}
