package exclude

import (
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

func TestAlternativeSources(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`abc`, []string{`abc`}},
		{`a|b`, []string{`a`, `b`}},
		{`(?i)a|b|c`, []string{`(?i)a`, `(?i)b`, `(?i)c`}},
		{`(?i:a)|b`, []string{`(?i:a)`, `b`}},
		{`(a|b)|c`, []string{`(a|b)`, `c`}},
		{`[|]|x`, []string{`[|]`, `x`}},
		{`[]|]|x`, []string{`[]|]`, `x`}},
		{`[^]|)]|x`, []string{`[^]|)]`, `x`}},
		{`\||y`, []string{`\|`, `y`}},
		{`[\]|]|z`, []string{`[\]|]`, `z`}},
		{`(?P<secret>a|b)c|d`, []string{`(?P<secret>a|b)c`, `d`}},
	} {
		if got := alternativeSources(c.in); !slices.Equal(got, c.want) {
			t.Errorf("alternativeSources(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Every alternative the built-in patterns are compiled as gets a source
// that is a piece of the pattern as written (not a printed tree, which
// costs milliseconds per character class) and that parses to that
// alternative's tree; an alternative with its leading \b dropped too.
func TestBuiltinAlternativesKeepTheirSources(t *testing.T) {
	for _, p := range append(append([]string{}, DefaultSecretPatterns...), DefaultRedactPatterns...) {
		tree, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		subs := topAlternatives(tree)
		fromPattern := func(src string) bool {
			return src != "" && strings.Contains(p, strings.TrimPrefix(src, leadingFlags(p)))
		}
		for i, src := range subSources(p, tree, subs) {
			if got, err := syntax.Parse(src, syntax.Perl); err != nil || !got.Equal(subs[i]) || !fromPattern(src) {
				t.Errorf("%q: alternative %d: source %q (parse error %v)", p, i, src, err)
			}
			if core, ok := withoutBoundary(subs[i]); ok {
				if cs := sourceOf(core, withoutLeadingBoundary(src)); !fromPattern(cs) {
					t.Errorf("%q: alternative %d without its \\b: source %q", p, i, cs)
				}
			}
		}
	}
}

// A candidate that parses to another tree (or does not parse) is never
// taken: the tree is printed instead.
func TestSourceOfChecksTheTree(t *testing.T) {
	re, _ := syntax.Parse(`(?i)ab[^x]`, syntax.Perl)
	for _, bad := range []string{`ab[^x]`, `(?i)ab[^y]`, `(?i)ab[^x`} {
		if got := sourceOf(re, bad); got != re.String() {
			t.Errorf("sourceOf(%q) = %q, want the printed tree %q", bad, got, re.String())
		}
	}
	if got := sourceOf(re, `x`, `(?i)ab[^x]`); got != `(?i)ab[^x]` {
		t.Errorf("sourceOf = %q, want the matching candidate", got)
	}
}
