package local

import (
	"slices"
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
