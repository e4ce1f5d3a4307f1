package lexical

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A Matcher's prefilter: ASCII text never stems to a term unless, at a
// place where a word or an identifier part may start, it holds the term's
// core (termCore) in some case. Lines of code and prose mostly hold none,
// and are then not matched word by word.
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

// mayHold reports whether a word or an identifier part of text may stem to
// a term: text has non-ASCII bytes, or a core starts (ASCII case folded)
// where a word or a part may start. textsplit starts neither between two
// lower-case ASCII letters.
func (p *prefilter) mayHold(text string) bool {
	if !p.on {
		return true
	}
	for j := 0; j < len(text); j++ {
		c := text[j]
		switch {
		case !p.first[c]:
			continue
		case c >= utf8.RuneSelf:
			return true
		case 'a' <= c && c <= 'z' && j > 0 && 'a' <= text[j-1] && text[j-1] <= 'z':
			continue // inside a lower-case run
		}
		for _, core := range p.cores {
			if len(text)-j >= len(core) && equalFoldASCII(text[j:j+len(core)], core) {
				return true
			}
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
