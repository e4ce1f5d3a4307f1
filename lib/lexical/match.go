package lexical

import (
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// TermSet is a set of query terms normalised for matching against text
// (lowercase, light stemming), used to highlight and quote passages.
type TermSet map[string]bool

// NewTermSet builds the set from query terms (see Terms).
func NewTermSet(terms []string) TermSet {
	s := TermSet{}
	for _, t := range terms {
		s[Stem(t)] = true
	}
	return s
}

// Covered returns the distinct terms of the set that occur in text as a
// word or an identifier part (nil when none does). It allocates only for
// what it finds; to test many texts against one set, use a Matcher.
func (s TermSet) Covered(text string) map[string]bool {
	var seen map[string]bool
	var first initials
	for t := range s {
		first.add(t)
	}
	eachStem(text, &first, func(t string) {
		if s[t] && !seen[t] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[strings.Clone(t)] = true // t may point into a scratch buffer
		}
	})
	return seen
}

// MaxMatcherTerms is how many terms a Matcher tells apart (a query has at
// most MaxQueryTerms).
const MaxMatcherTerms = 64

// A Matcher reports which terms of a TermSet texts hold, as a bit set
// (bit i for Terms()[i]): the form for testing every line of many chunks
// against one query, without a map per line.
type Matcher struct {
	terms []string
	bit   map[string]uint64
	first initials
	pre   prefilter
}

// Matcher returns the set's matcher: its terms sorted, the first
// MaxMatcherTerms of them told apart.
func (s TermSet) Matcher() *Matcher {
	m := &Matcher{terms: make([]string, 0, len(s)), bit: make(map[string]uint64, len(s))}
	for t := range s {
		m.terms = append(m.terms, t)
	}
	slices.Sort(m.terms)
	m.terms = m.terms[:min(len(m.terms), MaxMatcherTerms)]
	for i, t := range m.terms {
		m.bit[t] = 1 << i
		m.first.add(t)
	}
	m.pre = newPrefilter(m.terms)
	return m
}

// Terms are the matcher's terms, in bit order.
func (m *Matcher) Terms() []string { return m.terms }

// Covered is the set of terms (bits) that occur in text as a word or an
// identifier part, as TermSet.Covered finds them. In ASCII text only the
// words where a term's core starts the word or a part (prefilter) are
// matched, word by word: a line of text, as a snippet tests them, mostly
// holds none, and the others few. Text with non-ASCII bytes is matched
// whole.
func (m *Matcher) Covered(text string) uint64 {
	p := &m.pre
	if !p.on {
		return m.wordBits(text)
	}
	var bits uint64
	for j := 0; j < len(text); j++ {
		c := text[j]
		switch {
		case !p.first[c]:
			continue
		case c >= utf8.RuneSelf:
			return bits | m.wordBits(text)
		case 'a' <= c && c <= 'z' && j > 0 && 'a' <= text[j-1] && text[j-1] <= 'z':
			continue // inside a lower-case run: no word or part starts
		case !p.coreAt(text, j):
			continue
		}
		lo, hi, ok := textsplit.ASCIIWordAround(text, j)
		if !ok {
			return bits | m.wordBits(text)
		}
		bits |= m.wordBits(text[lo:hi])
		j = hi - 1 // on after the word
	}
	return bits
}

// wordBits is the set of terms (bits) the words of text and their parts
// stem to.
func (m *Matcher) wordBits(text string) uint64 {
	var bits uint64
	eachStem(text, &m.first, func(t string) { bits |= m.bit[t] })
	return bits
}

// eachStem calls fn with the stem of every word of text and of every
// identifier part of its words (textsplit.SplitIdentifier) that may stem
// to a term whose initial first marks; a word that is its own only part
// (textsplit.WholePart) is passed once. The stem may point into a scratch buffer: it
// is valid only during the call.
func eachStem(text string, first *initials, fn func(stem string)) {
	var buf [64]byte
	check := func(w string) {
		if first.mayStem(w) {
			fn(Stem(lowerASCII(w, &buf)))
		}
	}
	textsplit.EachWord(text, func(w string) {
		check(w)
		if !textsplit.WholePart(w) {
			textsplit.EachPart(w, check)
		}
	})
}

// initials marks the first bytes of stems. Stem keeps a word's first
// letter, so a word whose lower-cased ASCII first letter is not marked
// cannot stem to any of them: the check that spares most words of a text
// lower-casing and stemming.
type initials [256]bool

func (in *initials) add(stem string) {
	if stem != "" {
		in[stem[0]] = true
	}
}

// mayStem reports whether w (non-empty) may stem to a marked stem.
func (in *initials) mayStem(w string) bool {
	c := w[0]
	if c >= utf8.RuneSelf {
		return true // lower-casing may change it
	}
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return in[c]
}

// lowerASCII is strings.ToLower(w), written into buf when w is short ASCII
// with upper-case letters: the result is then only valid until buf is
// written again.
func lowerASCII(w string, buf *[64]byte) string {
	if len(w) > len(buf) {
		return strings.ToLower(w)
	}
	upper := false
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(w)
		}
		upper = upper || 'A' <= c && c <= 'Z'
	}
	if !upper {
		return w
	}
	b := buf[:len(w)]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return unsafe.String(&b[0], len(b))
}

// Stem strips common English inflections so "advances", "advanced" and
// "advance" agree, as do "entries" and "entry". It is deliberately light:
// it only needs to agree with itself.
func Stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	case n > 4 && strings.HasSuffix(w, "es"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		w = w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ly"):
		w = w[:n-2]
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}
