package grep

import (
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// lines returns the 1-based numbers of the lines of text m matches.
func lines(t *testing.T, m *Matcher, text string) []int {
	t.Helper()
	var out []int
	m.scan(text, 0, func(start, end int, cols [][2]int, cut bool) bool {
		out = append(out, strings.Count(text[:start], "\n")+1)
		if len(cols) == 0 {
			t.Errorf("line %d reported without match ranges", out[len(out)-1])
		}
		return true
	}, func() bool { return false })
	return out
}

func mustCompile(t *testing.T, p Pattern) *Matcher {
	t.Helper()
	m, err := Compile(p)
	if err != nil {
		t.Fatalf("Compile(%+v): %v", p, err)
	}
	return m
}

// Patterns match within lines, as grep does, whatever they say about
// newlines; the case modes and literal mode behave as documented.
func TestPatternsMatchLines(t *testing.T) {
	text := "func Open() {\n\treturn nil\n}\n\nfunc open2()\nOPEN all\nKelvin: 5\u212A\n"
	for _, c := range []struct {
		p    Pattern
		want string
	}{
		{Pattern{Expr: "func", Literal: true}, "1,5"},
		{Pattern{Expr: "open", Literal: true}, "5"},
		{Pattern{Expr: "open", Literal: true, Case: CaseInsensitive}, "1,5,6"},
		{Pattern{Expr: "open", Literal: true, Case: CaseSmart}, "1,5,6"},
		{Pattern{Expr: "Open", Literal: true, Case: CaseSmart}, "1"},
		{Pattern{Expr: "O.en", Literal: true}, ""},
		{Pattern{Expr: `^func \w+\(`}, "1,5"},
		{Pattern{Expr: `\)$`}, "5"},
		{Pattern{Expr: `\A}`}, "3"},                // \A anchors at line starts
		{Pattern{Expr: `nil\s+}`}, ""},             // \s does not cross lines
		{Pattern{Expr: `(?s)nil.}`}, ""},           // neither does (?s).
		{Pattern{Expr: `[^x]*nil[^y]*\}`}, ""},     // nor a negated class
		{Pattern{Expr: `^$`}, "4"},                 // the empty line
		{Pattern{Expr: `(?i)open\d?\(`}, "1,5"},    // flags inside the pattern
		{Pattern{Expr: `k`, Case: CaseSmart}, "7"}, // folds to KELVIN SIGN
		{Pattern{Expr: `open|return`}, "2,5"},
	} {
		m := mustCompile(t, c.p)
		var got []string
		for _, n := range lines(t, m, text) {
			got = append(got, strconv.Itoa(n))
		}
		if g := strings.Join(got, ","); g != c.want {
			t.Errorf("%+v: lines %q, want %q", c.p, g, c.want)
		}
	}
}

// Bad and hostile patterns are refused with the field at fault; none is
// compiled into something expensive.
func TestPatternLimits(t *testing.T) {
	for _, c := range []struct {
		p    Pattern
		code errcode.Code
	}{
		{Pattern{Expr: strings.Repeat("a", 100<<10)}, errcode.InvalidRange},
		{Pattern{Expr: "(unclosed"}, errcode.InvalidField},
		{Pattern{Expr: `a\nb`}, errcode.InvalidField},
		{Pattern{Expr: "a\nb", Literal: true}, errcode.InvalidField},
		{Pattern{Expr: "x", Case: "loud"}, errcode.InvalidField},
		{Pattern{Expr: `((a{100}){100}){100}`}, errcode.InvalidField}, // RE2 refuses the size itself
		{Pattern{Expr: `(\w{1,1000}){1,1000}`}, errcode.InvalidField},
		{Pattern{Expr: `[a-z]{1000}\w{1000}`}, errcode.InvalidRange},
		{Pattern{Expr: `(\pL|\pN){900}`}, errcode.InvalidRange},
		{Pattern{Expr: ""}, errcode.MissingField},
	} {
		_, err := Compile(c.p)
		if err == nil {
			t.Errorf("Compile(%.40q) accepted, want %s", c.p.Expr, c.code)
			continue
		}
		if e := errcode.As(err); e.Code != c.code || (e.Field != "pattern" && e.Field != "case") {
			t.Errorf("Compile(%.40q): %v, want %s", c.p.Expr, err, c.code)
		}
	}
}

// The trigram query never rejects a text that holds a match: a property
// checked on random texts and patterns against Go's regexp run line by
// line.
func TestTrigramQueryIsConservative(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alphabet := []string{"a", "b", "A", "B", "ab", "ba", "x", "\u212A", "k", "K", "\u017F", "s", "S", "é", "É", " ", "\n"}
	pieces := []string{"a", "b", "ab", "ba", "abc", "kab", "ska", "Ab", "é", "(a|b)", "a+", "b*", "[ab]", ".", "(ab|ba)", "x?", "(?i:ab)", "(?i:kas)", "(abc)+", "a{2}"}
	seen := newSeen()
	rejected := 0
	for i := range 4000 {
		var tb strings.Builder
		for range rng.Intn(40) {
			tb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		text := tb.String()
		var pb strings.Builder
		for range 1 + rng.Intn(4) {
			pb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		p := Pattern{Expr: pb.String(), Case: CaseModes[i%3], Literal: i%5 == 0}
		m, err := Compile(p)
		if err != nil {
			continue
		}
		set, _ := trigramSet(text, seen, nil)
		if m.filter.holds(set) {
			continue
		}
		rejected++
		// Rejected: no line may match.
		ref := m.re
		if m.literal != "" {
			ref = regexp.MustCompile(regexp.QuoteMeta(m.literal))
		}
		for _, ln := range strings.Split(text, "\n") {
			if ref.MatchString(ln) {
				t.Fatalf("pattern %+v rejected text %q whose line %q matches", p, text, ln)
			}
		}
	}
	if rejected < 1000 {
		t.Fatalf("only %d of 4000 texts rejected: the property is barely exercised", rejected)
	}
}
