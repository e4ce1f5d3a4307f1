package lexical

import "testing"

// A Matcher finds, in any text, the terms that matching every word and
// identifier part finds (TermSet.Covered), whatever its bytes.
func FuzzMatcherCovered(f *testing.F) {
	f.Add("ReadRune reads a rune", "func (r *Reader) ReadRune() (rune, int, error)")
	f.Add("entries advance", "Entries are ADVANCED; nextEntry := tr.Next()")
	f.Add("kelvin __init__ x86", "\u212aelvin naïve __init__ x86_64 Ünï")
	f.Add("HTTP server", "HTTPServer serves HTTP/2 URLsFor")
	f.Fuzz(func(t *testing.T, query, text string) {
		s := Parse(query).TermSet()
		m := s.Matcher()
		if got, want := m.Covered(text), everyWordBits(s, m, text); got != want {
			t.Fatalf("query %q, text %q: Covered %b, every word %b (cores %q)", query, text, got, want, m.pre.cores)
		}
	})
}
