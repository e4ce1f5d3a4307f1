package textsplit

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitIdentifier(t *testing.T) {
	for in, want := range map[string][]string{
		"HTTPServer":       {"http", "server"},
		"getURLParts":      {"get", "url", "parts"},
		"parseHTTPHeader2": {"parse", "http", "header", "2"},
		"snake_case_x2":    {"snake", "case", "x", "2"},
		"SCREAMING_SNAKE":  {"screaming", "snake"},
		"__init__":         {"init"},
		"_private":         {"private"},
		"camelCase":        {"camel", "case"},
		"PascalCase":       {"pascal", "case"},
		"utf8":             {"utf", "8"},
		"sha256Sum":        {"sha", "256", "sum"},
		"x86_64":           {"x", "86", "64"},
		"HTTP2Server":      {"http", "2", "server"},
		"URLs":             {"urls"},
		"getURLsFor":       {"get", "urls", "for"},
		"IDs":              {"ids"},
		"ABCdef":           {"ab", "cdef"},
		"iOS":              {"i", "os"},
		"A":                {"a"},
		"ALLCAPS":          {"allcaps"},
		"lower":            {"lower"},
		"io.ReadAll":       {"io", "read", "all"},
		"kebab-case":       {"kebab", "case"},
		"naïveCafé":        {"naïve", "café"},
		"ÜberGroß":         {"über", "groß"},
		"ΣίσυφοςΠέτρα":     {"σίσυφος", "πέτρα"},
		"日本語テキスト":          {"日本語テキスト"},
		"日本Go":             {"日本", "go"},
		"版本2":              {"版本", "2"},
		"e\u0301cole_Norm": {"e\u0301cole", "norm"},
		"":                 nil,
		"  ...  ":          nil,
		"___":              nil,
		"2024":             {"2024"},
		"v1Beta2":          {"v", "1", "beta", "2"},
		"MyXMLHttpRequest": {"my", "xml", "http", "request"},
		"Ｆｕｌｌｗｉｄｔｈ":        {"ｆｕｌｌｗｉｄｔｈ"},
	} {
		if got := SplitIdentifier(in); !slices.Equal(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func collectWords(text string) []string {
	var out []string
	Words(text, func(tok string) { out = append(out, tok) })
	return out
}

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"parseHTTPHeader2(x)":   {"parsehttpheader2", "parse", "http", "header", "2", "x"},
		"snake_case":            {"snake_case", "snake", "case"},
		"Hello, world!":         {"hello", "world"},
		"func (s *Server) Do()": {"func", "s", "server", "do"},
		"_private":              {"_private", "private"},
		"__init__ ___ _":        {"__init__", "init"},
		"don't stop":            {"don", "t", "stop"},
		"3.14 x86_64":           {"3", "14", "x86_64", "x", "86", "64"},
		"naïve Café":            {"naïve", "café"},
		"a\u0301 \u0301b":       {"a\u0301", "b"},
		"tab\tnew\nline\r\n":    {"tab", "new", "line"},
		"über‿alles":            {"über‿alles", "über", "alles"},
	} {
		if got := collectWords(in); !slices.Equal(got, want) {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordsInvalidUTF8(t *testing.T) {
	// Invalid bytes separate words and never panic.
	got := collectWords("abc\xffdef\xc3")
	if !slices.Equal(got, []string{"abc", "def"}) {
		t.Fatalf("Words on invalid UTF-8 = %q", got)
	}
}

func TestEachPartPreservesText(t *testing.T) {
	// Parts are substrings of the word in order; joined they give back
	// the word minus its underscores.
	for _, w := range []string{"parseHTTPHeader2", "snake_case_x2", "getURLsFor", "e\u0301cole_Norm", "日本Go", "MyXMLHttpRequest"} {
		var parts []string
		EachPart(w, func(p string) { parts = append(parts, p) })
		if got, want := strings.Join(parts, ""), strings.ReplaceAll(w, "_", ""); got != want {
			t.Errorf("parts of %q join to %q, want %q", w, got, want)
		}
	}
}

func TestEachWordVerbatim(t *testing.T) {
	var got []string
	EachWord("Foo.BarBaz, qux_1", func(w string) { got = append(got, w) })
	if want := []string{"Foo", "BarBaz", "qux_1"}; !slices.Equal(got, want) {
		t.Fatalf("EachWord = %q, want %q", got, want)
	}
}

func TestNoAllocations(t *testing.T) {
	text := strings.Repeat("func parseHTTPHeader2(r *bufio.Reader) (Header, error) { // naïve ÜberGroß\n", 20)
	n := 0
	allocs := testing.AllocsPerRun(20, func() {
		EachWord(text, func(w string) {
			EachPart(w, func(p string) { n += len(p) })
		})
	})
	if allocs != 0 {
		t.Fatalf("EachWord+EachPart allocate %.1f times per run", allocs)
	}
	lower := "already lower case words_and parts"
	allocs = testing.AllocsPerRun(20, func() { Words(lower, func(string) {}) })
	if allocs != 0 {
		t.Fatalf("Words on lower-case text allocates %.1f times per run", allocs)
	}
}

func BenchmarkWords(b *testing.B) {
	text := strings.Repeat("func (c *Client) parseHTTPHeader2(r *bufio.Reader) (Header, error) {\n\tif err != nil { return nil, err }\n", 30)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Words(text, func(string) {})
	}
}

func BenchmarkEachWordPart(b *testing.B) {
	text := strings.Repeat("func (c *Client) parseHTTPHeader2(r *bufio.Reader) (Header, error) {\n\tif err != nil { return nil, err }\n", 30)
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		EachWord(text, func(w string) { EachPart(w, func(string) {}) })
	}
}

// A word WholePart passes is its own only part, as EachPart
// splits it.
func TestWholePartIsEachPartsOnlyPart(t *testing.T) {
	for _, w := range []string{"returns", "Returns", "a", "A", "128", "x2", "HTTPServer", "parseHTTP", "snake_case", "ID", "IDs", "Ab", "aB", "é", "Ünï", "_x", "9a", "URLsFor"} {
		var parts []string
		EachPart(w, func(p string) { parts = append(parts, p) })
		only := len(parts) == 1 && parts[0] == w
		if WholePart(w) && !only {
			t.Errorf("WholePart(%q) but EachPart yields %q", w, parts)
		}
	}
}

// ASCIIWordAround finds the word EachWord yields around a byte, and
// declines where that word may not be all ASCII or is no word.
func TestASCIIWordAround(t *testing.T) {
	for _, c := range []struct {
		text   string
		i      int
		lo, hi int
		ok     bool
	}{
		{"x := parseHTTP_header2(y)", 7, 5, 22, true},
		{"x := parseHTTP_header2(y)", 5, 5, 22, true},
		{"x := parseHTTP_header2(y)", 21, 5, 22, true},
		{"x := parseHTTP_header2(y)", 0, 0, 1, true},
		{"x := parseHTTP_header2(y)", 1, 0, 0, false}, // a space
		{"a __ b", 2, 0, 0, false},                    // underscores alone
		{"naïve words", 0, 0, 0, false},               // runs into "ï"
		{"Ünïcode", 4, 0, 0, false},
		{"end", 3, 0, 0, false}, // out of range
	} {
		lo, hi, ok := ASCIIWordAround(c.text, c.i)
		if ok != c.ok || ok && (lo != c.lo || hi != c.hi) {
			t.Errorf("ASCIIWordAround(%q, %d) = %d, %d, %v; want %d, %d, %v", c.text, c.i, lo, hi, ok, c.lo, c.hi, c.ok)
		}
		if ok {
			var words []string
			EachWord(c.text, func(w string) { words = append(words, w) })
			if !slices.Contains(words, c.text[lo:hi]) {
				t.Errorf("%q is not a word of %q (%q)", c.text[lo:hi], c.text, words)
			}
		}
	}
}
