package grep

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Trigram prefilter. Every document keeps the sorted set of the trigrams
// (3-byte sequences) of its text after norm; a pattern yields a query over
// trigrams that any text holding a match satisfies, so documents failing
// it are never scanned. norm folds ASCII letters to lower case and maps
// the two non-ASCII runes whose case folding reaches ASCII (KELVIN SIGN →
// k, LONG S → s), so one index serves case-sensitive and case-insensitive
// patterns alike.

type trigram = uint32

// norm appends the normalized bytes of s to dst.
func norm(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < utf8.RuneSelf:
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x84 && s[i+2] == 0xAA: // U+212A KELVIN SIGN
			dst = append(dst, 'k')
			i += 3
		case c == 0xC5 && i+1 < len(s) && s[i+1] == 0xBF: // U+017F LATIN SMALL LETTER LONG S
			dst = append(dst, 's')
			i += 2
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}

// trigramSet returns the sorted distinct trigrams of text, using seen (a
// bitmap of 1<<24 bits, all clear, left clear) to deduplicate.
func trigramSet(text string, seen []uint64, buf []byte) ([]trigram, []byte) {
	buf = norm(buf[:0], text)
	var set []trigram
	for i := 0; i+2 < len(buf); i++ {
		t := trigram(buf[i])<<16 | trigram(buf[i+1])<<8 | trigram(buf[i+2])
		if seen[t>>6]&(1<<(t&63)) == 0 {
			seen[t>>6] |= 1 << (t & 63)
			set = append(set, t)
		}
	}
	for _, t := range set {
		seen[t>>6] &^= 1 << (t & 63)
	}
	slices.Sort(set)
	return slices.Clip(set), buf
}

// newSeen returns the bitmap trigramSet needs.
func newSeen() []uint64 { return make([]uint64, 1<<24/64) }

// query is a boolean formula over trigrams: every trigram of and, and in
// each group of anyOf at least one sub-query. A nil *query matches every
// text.
type query struct {
	and   []trigram // sorted, distinct
	anyOf [][]*query
	// none matches no text at all (a pattern that cannot match).
	none bool
}

// maxQueryLeaves bounds the size of a query built from a pattern;
// a larger one is dropped (matches every text).
const maxQueryLeaves = 256

// holds reports whether a text with the sorted trigram set has every
// trigram q needs.
func (q *query) holds(set []trigram) bool {
	if q == nil {
		return true
	}
	if q.none {
		return false
	}
	for _, t := range q.and {
		if _, ok := slices.BinarySearch(set, t); !ok {
			return false
		}
	}
	for _, group := range q.anyOf {
		if !slices.ContainsFunc(group, func(o *query) bool { return o.holds(set) }) {
			return false
		}
	}
	return true
}

// literalQuery is the query of a literal (fold: matched ignoring case).
// Under fold, only runs of runes whose case variants all normalize alike
// give trigrams.
func literalQuery(s string, fold bool) *query {
	var tris []trigram
	run := []byte{}
	flush := func() {
		for i := 0; i+2 < len(run); i++ {
			tris = append(tris, trigram(run[i])<<16|trigram(run[i+1])<<8|trigram(run[i+2]))
		}
		run = run[:0]
	}
	for _, r := range s {
		if fold && !foldsAlike(r) {
			flush()
			continue
		}
		run = norm(run, string(r))
	}
	flush()
	if len(tris) == 0 {
		return nil
	}
	slices.Sort(tris)
	return &query{and: slices.Compact(tris)}
}

// foldsAlike reports whether every rune that r case-folds to normalizes to
// the same bytes as r.
func foldsAlike(r rune) bool {
	want := string(norm(nil, string(r)))
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if string(norm(nil, string(f))) != want {
			return false
		}
	}
	return true
}

// regexpQuery is the query a text must satisfy to hold a match of re.
func regexpQuery(re *syntax.Regexp) *query {
	q := build(re)
	if q != nil && leaves(q) > maxQueryLeaves {
		return nil
	}
	return q
}

func build(re *syntax.Regexp) *query {
	switch re.Op {
	case syntax.OpNoMatch:
		return &query{none: true}
	case syntax.OpLiteral:
		return literalQuery(string(re.Rune), re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return build(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return build(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		var out *query
		for _, sub := range re.Sub {
			out = and(out, build(sub))
		}
		return out
	case syntax.OpAlternate:
		var alts []*query
		for _, sub := range re.Sub {
			q := build(sub)
			if q == nil {
				return nil // one branch needs nothing: neither does the whole
			}
			if !q.none {
				alts = append(alts, q)
			}
		}
		switch len(alts) {
		case 0:
			return &query{none: true}
		case 1:
			return alts[0]
		}
		return &query{anyOf: [][]*query{alts}}
	}
	return nil
}

// and combines two queries.
func and(a, b *query) *query {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.none || b.none:
		return &query{none: true}
	}
	tris := append(slices.Clone(a.and), b.and...)
	slices.Sort(tris)
	return &query{and: slices.Compact(tris), anyOf: append(slices.Clone(a.anyOf), b.anyOf...)}
}

// leaves counts the trigrams in q.
func leaves(q *query) int {
	if q == nil {
		return 0
	}
	n := len(q.and)
	for _, g := range q.anyOf {
		for _, o := range g {
			n += leaves(o)
		}
	}
	return n
}
