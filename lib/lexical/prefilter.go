package lexical

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A Matcher's prefilter: ASCII text never stems to a term unless, at a
// place where a word or an identifier part may start, it holds the term's
// core (termCore) in some case. Most words of code and prose hold none,
// and are then not stemmed at all.
type prefilter struct {
	on    bool
	cores []string // ASCII lower-case
	// first marks the cores' first bytes in both cases, and every
	// non-ASCII byte (case folding may turn non-ASCII text into ASCII).
	first [256]bool
}

// newPrefilter is the prefilter of terms (stems), off when a term's core
// is empty.
func newPrefilter(terms []string) prefilter {
	p := prefilter{on: true}
	for _, t := range terms {
		if !isASCII(t) {
			continue // ASCII text never stems to it
		}
		c := termCore(t)
		if c == "" {
			return prefilter{}
		}
		if !slices.Contains(p.cores, c) {
			p.cores = append(p.cores, c)
			p.first[c[0]] = true
			if 'a' <= c[0] && c[0] <= 'z' {
				p.first[c[0]-'a'+'A'] = true
			}
		}
	}
	for c := utf8.RuneSelf; c < len(p.first); c++ {
		p.first[c] = true
	}
	return p
}

// termCore is what every ASCII word or identifier part that stems to t
// (Stem of it lower-cased) holds: Stem keeps a prefix of the word, or
// turns "ies" into "y", so all of t but a final "y" starts the word
// lower-cased.
func termCore(t string) string {
	return strings.TrimSuffix(t, "y")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// coreAt reports whether a term's core starts at text[j], in some case.
// Covered asks it where a word or an identifier part may start: not
// between two lower-case ASCII letters (textsplit starts neither there).
func (p *prefilter) coreAt(text string, j int) bool {
	for _, core := range p.cores {
		if len(text)-j >= len(core) && equalFoldASCII(text[j:j+len(core)], core) {
			return true
		}
	}
	return false
}

// equalFoldASCII reports whether s equals lower, an ASCII lower-case
// string, with s's ASCII letters lower-cased.
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
