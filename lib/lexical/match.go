package lexical

import (
	"strings"

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
// word or an identifier part, calling fn (if not nil) for each occurrence.
func (s TermSet) Covered(text string) map[string]bool {
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
