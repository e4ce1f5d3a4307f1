package lexical

import (
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
// word or an identifier part (nil when none does). It runs for every line
// of every hit a search returns, so it allocates only for what it finds.
func (s TermSet) Covered(text string) map[string]bool {
	var seen map[string]bool
	var buf [64]byte
	var first initials
	for t := range s {
		first.add(t)
	}
	check := func(w string) {
		if !first.mayStem(w) {
			return
		}
		t := Stem(lowerASCII(w, &buf))
		if s[t] && !seen[t] {
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[strings.Clone(t)] = true // t may point into buf
		}
	}
	textsplit.EachWord(text, func(w string) {
		check(w)
		// The word's identifier parts (textsplit.SplitIdentifier).
		textsplit.EachPart(w, check)
	})
	return seen
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
