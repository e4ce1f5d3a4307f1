package exclude

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A secret pattern is split into its top-level alternatives, and each gets
// the cheapest strategy that gives exactly the verdict of the regexp over
// the whole content:
//
//   - run: the alternative is a repeated character class, e.g.
//     [0-9a-zA-Z/+=]{40}; a byte scan with a skip table looks for a long
//     enough run, so no regexp runs at all.
//   - prefix: every match starts with one of a few literals, e.g.
//     "AKIA" or (?i)"token"; bytes.IndexByte finds the literal's rarest
//     byte (both cases when case-insensitive), the literal is compared
//     around each hit, and the alternative, anchored, is tried only there.
//     Offsets of a byte are computed once per content and shared.
//   - regexp: anything else runs the alternative's regexp over the content.
//
// Before either, an alternative whose matches must contain a long run of a
// class (token\s*[:=]\s*[A-Za-z0-9_.-]{20,}) is dropped at once when the
// content has no such run.
//
// The fast strategies work on ASCII bytes. Go's case folding also maps the
// non-ASCII runes U+017F (ſ) to s and U+212A (Kelvin sign) to k, and a class
// may hold a few non-ASCII runes; such runes are recorded per alternative
// and, when the content holds one, the alternative falls back to its regexp.

// maxPrefixLits bounds the literal set of the prefix strategy.
const maxPrefixLits = 16

// minPrefixLen is the shortest literal worth a prefix search.
const minPrefixLen = 3

// maxClassLits bounds the runes of a character class read as literals.
const maxClassLits = 8

type secretRule struct {
	alts []*alternative
}

type alternative struct {
	re *regexp.Regexp // the alternative alone: exact, used as the fallback

	// prefix strategy
	anchored *regexp.Regexp // `^(?:alt)`, tried at each literal occurrence
	lits     []literal

	// run strategy: a run of at least runMin bytes of runSet
	runSet *[256]bool
	runMin int

	// needs lists runs every match contains (factors such as [a-z]{20,}),
	// and needLits case-sensitive literals every match contains (factors
	// such as ".eyJ" in a JWT), checked before the prefix search or the
	// regexp (needsMet)
	needs    []run
	needLits [][]byte

	escapes [][]byte // non-ASCII runes the fast strategies ignore, UTF-8 encoded
}

type run struct {
	set *[256]bool
	min int
}

// literal is a search string; fold literals are lower-case ASCII and match
// regardless of ASCII case.
type literal struct {
	b    []byte
	fold bool
	rare int // offset of the byte least likely to occur in text, searched first
}

// byteCommonness lists bytes from most to least frequent in source code and
// prose (measured on GOROOT/src, lower-cased); bytes not listed are rarer.
const byteCommonness = " et\tranos0i\nox,clfdupm.1/g():bh2\"v=y_4{}36\\8wk597[]*-!zq&+<%;|j'>`#^$?@~"

// rarity scores how unlikely c is in text; higher is rarer.
func rarity(c byte) int {
	lower := c
	if 'A' <= c && c <= 'Z' {
		lower = c + 'a' - 'A'
	}
	i := strings.IndexByte(byteCommonness, lower)
	if i < 0 {
		return 2 * len(byteCommonness)
	}
	if lower != c {
		i += len(byteCommonness) / 4 // upper case is rarer than lower case
	}
	return i
}

// withRare returns l with its rarest byte chosen.
func withRare(l literal) literal {
	l.rare = 0
	for i := range l.b {
		if rarity(l.b[i]) > rarity(l.b[l.rare]) {
			l.rare = i
		}
	}
	return l
}

// checkPattern compiles a secret or redaction pattern whole, refusing
// one that is empty or matches the empty string.
func checkPattern(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, errors.New("empty pattern would match every file")
	}
	whole, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	if whole.MatchString("") {
		return nil, errors.New("pattern matches the empty string, so it would exclude every file")
	}
	return whole, nil
}

func compileSecret(pattern string) (*secretRule, error) {
	whole, err := checkPattern(pattern)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	top := unwrapCapture(tree)
	subs := []*syntax.Regexp{tree}
	if top.Op == syntax.OpAlternate {
		subs = top.Sub
	}
	srcs := subSources(pattern, tree, subs)
	r := &secretRule{}
	for i, sub := range subs {
		a, err := compileAlternative(sub, srcs[i])
		if err != nil {
			// The alternative's source does not compile: keep the exact
			// whole-pattern regexp as the only alternative.
			return &secretRule{alts: []*alternative{{re: whole}}}, nil
		}
		r.alts = append(r.alts, a)
	}
	return r, nil
}

// compileAlternative compiles one alternative of a pattern, sub, whose
// source is src (sourceOf).
func compileAlternative(sub *syntax.Regexp, src string) (*alternative, error) {
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	a := &alternative{re: re}
	core := unwrapCapture(sub)
	if set, min, esc, ok := runOf(core); ok {
		a.runSet, a.runMin, a.escapes = set, min, esc
		return a, nil
	}
	if core.Op == syntax.OpConcat {
		for i, f := range core.Sub {
			if set, min, esc, ok := runOf(unwrapCapture(f)); ok && min >= 16 {
				a.needs = append(a.needs, run{set, min})
				for _, e := range esc {
					a.escapes = appendOnce(a.escapes, e)
				}
			}
			if l := unwrapCapture(f); i > 0 && l.Op == syntax.OpLiteral && l.Flags&syntax.FoldCase == 0 && len(l.Rune) >= 2 {
				a.needLits = append(a.needLits, []byte(string(l.Rune)))
			}
		}
	}
	pl := prefixLits(sub, 0)
	if !pl.ok || len(pl.lits) == 0 {
		return a, nil
	}
	for _, l := range pl.lits {
		if len(l.b) < minPrefixLen {
			return a, nil
		}
	}
	anchored, err := regexp.Compile(`^(?:` + src + `)`)
	if err != nil {
		return nil, err
	}
	for i := range pl.lits {
		pl.lits[i] = withRare(pl.lits[i])
	}
	for _, e := range pl.escapes {
		a.escapes = appendOnce(a.escapes, e)
	}
	a.anchored, a.lits = anchored, pl.lits
	return a, nil
}

func unwrapCapture(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re
}

// runOf recognises a repeated character class with a minimum count, e.g.
// [0-9a-z]{40}, [a-z]{8,} or [a-z]+. A match exists iff the content holds a
// run of at least min members.
func runOf(re *syntax.Regexp) (*[256]bool, int, [][]byte, bool) {
	var min int
	switch re.Op {
	case syntax.OpRepeat:
		min = re.Min
	case syntax.OpPlus:
		min = 1
	default:
		return nil, 0, nil, false
	}
	cls := unwrapCapture(re.Sub[0])
	if min < 1 || cls.Op != syntax.OpCharClass {
		return nil, 0, nil, false
	}
	set := new([256]bool)
	var escapes [][]byte
	for i := 0; i+1 < len(cls.Rune); i += 2 {
		lo, hi := cls.Rune[i], cls.Rune[i+1]
		for r := lo; r <= hi; r++ {
			if r < utf8.RuneSelf {
				set[r] = true
				continue
			}
			if len(escapes) >= 8 {
				return nil, 0, nil, false
			}
			escapes = append(escapes, utf8.AppendRune(nil, r))
		}
	}
	return set, min, escapes, true
}

// prefixSet is the result of prefixLits: every match of the node starts
// with one of lits; exact means every match of the node is one of lits.
type prefixSet struct {
	lits    []literal
	escapes [][]byte
	exact   bool
	ok      bool
}

var (
	escLongS  = []byte("\u017f") // folds to s
	escKelvin = []byte("\u212a") // folds to k
)

func prefixLits(re *syntax.Regexp, depth int) prefixSet {
	if depth > 8 {
		return prefixSet{}
	}
	switch re.Op {
	case syntax.OpCapture:
		return prefixLits(re.Sub[0], depth+1)
	case syntax.OpLiteral:
		return literalSet(re)
	case syntax.OpCharClass:
		// A small class, e.g. [Aa] or [pousr], is a set of one-rune
		// literals.
		var ps prefixSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(ps.lits) >= maxClassLits {
					return prefixSet{}
				}
				ps.lits = append(ps.lits, literal{b: utf8.AppendRune(nil, r)})
			}
		}
		ps.exact, ps.ok = true, len(ps.lits) > 0
		return ps
	case syntax.OpAlternate:
		ps := prefixSet{exact: true, ok: true}
		for _, s := range re.Sub {
			sub := prefixLits(s, depth+1)
			if !sub.ok {
				return prefixSet{}
			}
			ps.lits = append(ps.lits, sub.lits...)
			ps.escapes = append(ps.escapes, sub.escapes...)
			ps.exact = ps.exact && sub.exact
		}
		if len(ps.lits) > maxPrefixLits {
			return prefixSet{}
		}
		return ps
	case syntax.OpPlus:
		sub := prefixLits(re.Sub[0], depth+1)
		sub.exact = false
		return sub
	case syntax.OpRepeat:
		if re.Min < 1 {
			return prefixSet{}
		}
		sub := prefixLits(re.Sub[0], depth+1)
		sub.exact = sub.exact && re.Min == 1 && re.Max == 1
		return sub
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return prefixSet{}
		}
		ps := prefixLits(re.Sub[0], depth+1)
		for _, s := range re.Sub[1:] {
			if !ps.ok || !ps.exact {
				break
			}
			next := prefixLits(s, depth+1)
			if !next.ok || len(ps.lits)*len(next.lits) > maxPrefixLits {
				ps.exact = false
				break
			}
			ps = crossLits(ps, next)
		}
		return ps
	}
	return prefixSet{}
}

// literalSet turns a literal node into a one-element set. A case-folded
// literal is searched lower-cased; one with a non-ASCII letter is not
// supported (its fold partners are not a byte-wise lower-casing).
func literalSet(re *syntax.Regexp) prefixSet {
	fold := re.Flags&syntax.FoldCase != 0
	var b []byte
	var ps prefixSet
	for _, r := range re.Rune {
		if fold {
			if r >= utf8.RuneSelf && unicode.SimpleFold(r) != r {
				return prefixSet{}
			}
			r = unicode.ToLower(r)
			if r >= utf8.RuneSelf {
				return prefixSet{}
			}
			switch r {
			case 's':
				ps.escapes = appendOnce(ps.escapes, escLongS)
			case 'k':
				ps.escapes = appendOnce(ps.escapes, escKelvin)
			}
		}
		b = utf8.AppendRune(b, r)
	}
	if !fold {
		ps.escapes = nil
	}
	ps.lits = []literal{{b: b, fold: fold}}
	ps.exact, ps.ok = true, true
	return ps
}

// crossLits concatenates every literal of a with every literal of b. When
// the two halves differ in case sensitivity the result is searched
// case-insensitively, which finds a superset of the occurrences.
func crossLits(a, b prefixSet) prefixSet {
	out := prefixSet{exact: b.exact, ok: true}
	for _, x := range a.lits {
		for _, y := range b.lits {
			fold := x.fold || y.fold
			l := literal{fold: fold}
			l.b = append(l.b, lowerIf(x.b, fold)...)
			l.b = append(l.b, lowerIf(y.b, fold)...)
			out.lits = append(out.lits, l)
		}
	}
	for _, e := range a.escapes {
		out.escapes = appendOnce(out.escapes, e)
	}
	for _, e := range b.escapes {
		out.escapes = appendOnce(out.escapes, e)
	}
	for _, l := range out.lits {
		if l.fold {
			if bytes.IndexByte(l.b, 's') >= 0 {
				out.escapes = appendOnce(out.escapes, escLongS)
			}
			if bytes.IndexByte(l.b, 'k') >= 0 {
				out.escapes = appendOnce(out.escapes, escKelvin)
			}
		}
	}
	return out
}

func lowerIf(b []byte, fold bool) []byte {
	if !fold {
		return b
	}
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

func appendOnce(list [][]byte, b []byte) [][]byte {
	for _, x := range list {
		if bytes.Equal(x, b) {
			return list
		}
	}
	return append(list, b)
}
