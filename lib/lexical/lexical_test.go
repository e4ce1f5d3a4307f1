package lexical

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

func TestIndexTextAddsIdentifierParts(t *testing.T) {
	got := IndexText("func ReadFileHeader(snake_case_x int) // plain words")
	for _, want := range []string{"ReadFileHeader", " read file header", " snake case x"} {
		if !strings.Contains(got, want) {
			t.Errorf("IndexText missing %q in %q", want, got)
		}
	}
	if plain := "just plain words"; IndexText(plain) != plain {
		t.Errorf("plain text changed: %q", IndexText(plain))
	}
}

func TestTerms(t *testing.T) {
	cases := map[string][]string{
		"How does the tar reader find the next entry?": {"tar", "reader", "find", "next", "entry"},
		"parseHTTPHeader": {"parsehttpheader", "parse", "http", "header"},
		"the of and":      {"the", "of", "and"}, // only stopwords: keep them
		"a b c":           nil,
	}
	for q, want := range cases {
		if got := Terms(q); !reflect.DeepEqual(got, want) {
			t.Errorf("Terms(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestMatchQuotesEveryTerm(t *testing.T) {
	got := Parse(`foo"bar OR baz*`).Match().String()
	want := `"foo" OR "bar" OR "baz"`
	if got != want {
		t.Errorf("Match = %s, want %s", got, want)
	}
	if !Parse("?!").Match().Empty() {
		t.Error("a query without words should produce no match expression")
	}
}

func TestTermSetCovered(t *testing.T) {
	s := NewTermSet(Terms("advances next entry"))
	got := s.Covered("Next advances the reader to the next entries of the archive")
	if len(got) != 3 {
		t.Errorf("covered = %v, want all three terms", got)
	}
	if c := NewTermSet([]string{"header"}).Covered("func readFileHeader()"); !c["header"] {
		t.Errorf("identifier part not covered: %v", c)
	}
}

func TestStemAgrees(t *testing.T) {
	for _, group := range [][]string{{"advance", "advances", "advanced", "advancing"}, {"entry", "entries"}, {"box", "boxes"}, {"header", "headers"}} {
		for _, w := range group[1:] {
			if Stem(w) != Stem(group[0]) {
				t.Errorf("Stem(%q)=%q, Stem(%q)=%q", w, Stem(w), group[0], Stem(group[0]))
			}
		}
	}
}

func TestPhraseCoverage(t *testing.T) {
	text := "// Next advances to the next entry in the tar archive.\nfunc (tr *Reader) Next() (*Header, error) {"
	for _, c := range []struct {
		q    string
		want float64
	}{
		{"advances to the next entry in the tar archive.", 1},
		{"Advancing to next entries", 2.0 / 3}, // stemmed: advanc-to and next-entry hold; to-next does not ("the" between)
		{"archive tar the in entry", 0},        // same words, no pair in order
		{"Reader", 1},                          // one word: term coverage
		{"writer", 0},
		{"", 0},
	} {
		if got := Parse(c.q).PhraseCoverage(text); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("PhraseCoverage(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

// Covered and PhraseCoverage find exactly what stemming every lower-cased
// word (and identifier part) finds, on real code and prose of mixed case
// and script.
func TestTermSetCoveredAgreesWithSplitting(t *testing.T) {
	reference := func(s TermSet, text string) map[string]bool {
		seen := map[string]bool{}
		textsplit.EachWord(text, func(w string) {
			if t := Stem(strings.ToLower(w)); s[t] {
				seen[t] = true
			}
			for _, p := range textsplit.SplitIdentifier(w) {
				if t := Stem(strings.ToLower(p)); s[t] {
					seen[t] = true
				}
			}
		})
		return seen
	}
	var texts []string
	for _, f := range []string{"match.go", "query.go", "lexical_test.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, strings.Split(string(b), "\n")...)
	}
	texts = append(texts, "ÜBER Straße readFileHeader HTTPServerEntries", "ENTRIES Entries entries_ies", "The Covered Term Sets return the sets of words; stems lowered words",
		strings.Repeat("VeryLongIdentifierName", 5)+"Entries")
	phraseRef := func(q *Query, text string) float64 {
		if len(q.words) < 2 {
			return -1
		}
		pairs := map[[2]string]bool{}
		var prev string
		textsplit.EachWord(text, func(w string) {
			w = Stem(strings.ToLower(w))
			if prev != "" {
				pairs[[2]string{prev, w}] = true
			}
			prev = w
		})
		n := 0
		for i := 1; i < len(q.words); i++ {
			if pairs[[2]string{q.words[i-1], q.words[i]}] {
				n++
			}
		}
		return float64(n) / float64(len(q.words)-1)
	}
	for _, qs := range []string{"covered term set", "the words of a text", "Über straße entries", "stem lower words", "returns the set"} {
		q := Parse(qs)
		for _, text := range texts {
			if got, want := q.PhraseCoverage(text), phraseRef(q, text); got != want {
				t.Fatalf("PhraseCoverage(%q, %q) = %v, want %v", qs, text, got, want)
			}
		}
	}
	sets := []TermSet{NewTermSet(Terms("covered term set entry header")), NewTermSet(Terms("split words stem lower")),
		NewTermSet([]string{"über", "straße", "http", "server", "entry", "verylongidentifiernam"})}
	for _, s := range sets {
		m := s.Matcher()
		for _, text := range texts {
			got, want := s.Covered(text), reference(s, text)
			if len(got) != len(want) {
				t.Fatalf("Covered(%q) = %v, want %v", text, got, want)
			}
			for k := range want {
				if !got[k] {
					t.Fatalf("Covered(%q) = %v, want %v", text, got, want)
				}
			}
			// The matcher's bits name the same terms.
			bits := m.Covered(text)
			for i, term := range m.Terms() {
				if has := bits&(1<<i) != 0; has != want[term] {
					t.Fatalf("Matcher.Covered(%q) bit of %q = %v, want %v", text, term, has, want[term])
				}
			}
			if bits>>len(m.Terms()) != 0 {
				t.Fatalf("Matcher.Covered(%q) = %b: bits past its %d terms", text, bits, len(m.Terms()))
			}
		}
	}
}

// indexTextRef is IndexText as first written (one SplitIdentifier per
// distinct word): the reference the faster one must equal byte for byte.
func indexTextRef(s string) string {
	var extra strings.Builder
	seen := map[string]struct{}{}
	textsplit.EachWord(s, func(tok string) {
		if _, ok := seen[tok]; ok {
			return
		}
		seen[tok] = struct{}{}
		parts := textsplit.SplitIdentifier(tok)
		if len(parts) < 2 {
			return
		}
		for _, p := range parts {
			extra.WriteByte(' ')
			extra.WriteString(p)
		}
	})
	if extra.Len() == 0 {
		return s
	}
	return s + "\n" + extra.String()
}

// IndexText is byte-identical to the reference on real source files (the
// keyword index depends on it) and odd input.
func TestIndexTextMatchesReference(t *testing.T) {
	var texts []string
	for _, dir := range []string{"strings", "net/http", "encoding/json", "unicode"} {
		files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*.go"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	texts = append(texts, "ÉcoleNormale HTTPServer getURLsFor(x) x86_64 ΑθήναΠόλη 日本Go版本2 \xff\xfe_a ___ A_b-C.d İstanbulCity")
	if len(texts) < 10 {
		t.Fatal("no Go sources read")
	}
	for _, s := range texts {
		if got, want := IndexText(s), indexTextRef(s); got != want {
			t.Fatalf("IndexText differs from the reference on %.80q", s)
		}
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
		s := Parse(q).TermSet()
		m := s.Matcher()
		for ti, text := range texts {
			for i, ln := range strings.Split(text, "\n") {
				if got, want := m.Covered(ln), everyWordBits(s, m, ln); got != want {
					t.Fatalf("query %q, text %d line %d %q: Covered %b, term by term %b (prefilter %v, cores %q)", q, ti, i, ln, got, want, m.pre.on, m.pre.cores)
				}
			}
		}
	}
}

// Matching only the words where a term's core may start finds, line for
// line, what matching every word finds: over random lines of identifiers
// in every case style, digits, underscores, punctuation and non-ASCII
// letters next to ASCII ones, for random queries of their words.
func TestCoveredMatchesEveryWordRandom(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	pieces := []string{"read", "Read", "READ", "reader", "readers", "entries", "Entry", "entry", "y", "io", "IO",
		"http", "HTTP", "Server", "serve", "serving", "2", "128", "x86", "_", "__init__", "utf", "UTF", "8",
		"naïve", "ï", "Ünï", "\u212aey", "ſecret", "secret", "Secrets", "s", "URLs", "For", "key", "Keys", "tls"}
	seps := []string{" ", " ", ".", "(", ")", ", ", "-", "/", "\t", ":=", "'", "\""}
	word := func() string {
		var b strings.Builder
		for range 1 + r.Intn(3) {
			b.WriteString(pieces[r.Intn(len(pieces))])
			if r.Intn(4) == 0 {
				b.WriteByte('_')
			}
		}
		return b.String()
	}
	for range 300 {
		var q []string
		for range 1 + r.Intn(4) {
			q = append(q, word())
		}
		s := Parse(strings.Join(q, " ")).TermSet()
		m := s.Matcher()
		for range 40 {
			var b strings.Builder
			for range r.Intn(9) {
				b.WriteString(word())
				b.WriteString(seps[r.Intn(len(seps))])
			}
			ln := b.String()
			if got, want := m.Covered(ln), everyWordBits(s, m, ln); got != want {
				t.Fatalf("query %q, line %q: Covered %b, every word %b (cores %q)", q, ln, got, want, m.pre.cores)
			}
		}
	}
}

// everyWordBits is what m.Covered must find in text: the bits of the
// terms TermSet.Covered finds matching every word and part, no prefilter.
func everyWordBits(s TermSet, m *Matcher, text string) uint64 {
	var bits uint64
	for k := range s.Covered(text) {
		bits |= m.bit[k]
	}
	return bits
}
