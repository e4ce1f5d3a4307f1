package textsplit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"parseHTTPHeader2", "snake_case_x2", "getURLsFor(x)", "e\u0301cole‿Norm", "日本Go 版本2", "\xff\xfe_a", "___", "A_b-C.d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pos := 0
		EachWord(s, func(w string) {
			i := strings.Index(s[pos:], w)
			if w == "" || i < 0 {
				t.Fatalf("word %q is not the next substring of %q", w, s)
			}
			pos += i + len(w)
			if !utf8.ValidString(w) {
				t.Fatalf("word %q is not valid UTF-8", w)
			}
			var joined strings.Builder
			EachPart(w, func(p string) {
				if p == "" {
					t.Fatalf("empty part of %q", w)
				}
				joined.WriteString(p)
			})
			var want strings.Builder
			for _, r := range w {
				if r >= utf8.RuneSelf && classOf(r) == underscore || r == '_' {
					continue
				}
				want.WriteRune(r)
			}
			if joined.String() != want.String() {
				t.Fatalf("parts of %q join to %q, want %q", w, joined.String(), want.String())
			}
		})
		Words(s, func(tok string) {
			if tok != strings.ToLower(tok) || tok == "" {
				t.Fatalf("Words yielded %q", tok)
			}
		})
	})
}
