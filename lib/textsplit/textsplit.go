// Package textsplit splits text into words and code identifiers into their
// parts, the same way for indexing and for queries, so that a search for
// "http header" finds parseHTTPHeader and snake_case_name is found by
// "snake case" while the whole identifier stays searchable.
//
// A word is a maximal run of Unicode letters, decimal digits, combining
// marks and underscores that contains at least one letter or digit.
// Everything else (spaces, punctuation, symbols, '-', '.', apostrophes)
// separates words, and runs of underscores alone are not words.
//
// A word splits into parts at:
//   - underscores, which belong to no part: snake_case → snake, case;
//   - a lower-case (or caseless) letter followed by an upper-case one:
//     parseHttp → parse, Http;
//   - the last capital of a run of two or more capitals followed by a
//     lower-case letter: HTTPServer → HTTP, Server; except that a capital
//     run followed by a lone "s" keeps it as a plural: URLsFor → URLs, For;
//   - every switch between letters and digits, so a digit run is a part of
//     its own: parseHTTPHeader2 → parse, HTTP, Header, 2;
//     snake_case_x2 → snake, case, x, 2; utf8 → utf, 8; sha256 → sha, 256.
//
// Combining marks stay with the preceding letter. Letters without case
// (CJK, Arabic, ...) never start a part except after a digit or an
// underscore.
package textsplit

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words calls fn, in text order, for each word of text lowercased and then,
// when the word has more than one part or its only part differs from it
// (as for _private), for each of its parts lowercased. Part tokens may be
// a single character or all digits. For example
//
//	"parseHTTPHeader2(x)" → parsehttpheader2, parse, http, header, 2, x
//	"snake_case"          → snake_case, snake, case
//	"Hello world"         → hello, world
//
// The strings passed to fn may be retained; they are substrings of text
// when no case folding was needed.
func Words(text string, fn func(tok string)) {
	EachWord(text, func(word string) {
		fn(strings.ToLower(word))
		if single(word) {
			return
		}
		EachPart(word, func(part string) { fn(strings.ToLower(part)) })
	})
}

// SplitIdentifier returns the lowercased parts of every word of s, in
// order: SplitIdentifier("getURLParts") = [get url parts],
// SplitIdentifier("io.ReadAll") = [io read all]. It returns nil when s
// has no words.
func SplitIdentifier(s string) []string {
	var parts []string
	EachWord(s, func(word string) {
		EachPart(word, func(p string) { parts = append(parts, strings.ToLower(p)) })
	})
	return parts
}

// EachWord calls fn for each word of text, in order, exactly as it
// appears in text (no case folding). It does not allocate.
func EachWord(text string, fn func(word string)) {
	start := -1    // byte offset of the current word, -1 outside a word
	alnum := false // current word has a letter or digit
	for i := 0; i < len(text); {
		c := text[i]
		var k class
		size := 1
		if c < utf8.RuneSelf {
			k = asciiClass[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			k = classOf(r)
		}
		switch {
		case k == other:
			if start >= 0 {
				if alnum {
					fn(text[start:i])
				}
				start = -1
			}
		case start < 0:
			if k == mark {
				break // a mark with nothing to attach to
			}
			start, alnum = i, k != underscore
		default:
			alnum = alnum || (k != underscore && k != mark)
		}
		i += size
	}
	if start >= 0 && alnum {
		fn(text[start:])
	}
}

// EachPart calls fn for each part of word, in order, exactly as it appears
// in word. word should be one word as EachWord yields it; other characters
// are treated as letters without case. It does not allocate.
func EachPart(word string, fn func(part string)) {
	if WholePart(word) { // most words: no split to look for
		fn(word)
		return
	}
	start := -1   // byte offset of the current part, -1 between parts
	prev := other // class of the previous letter or digit in the part
	prevAt := 0   // byte offset of that rune
	upper := 0    // length in runes of the all-capitals prefix run, -1 if broken
	for i := 0; i < len(word); {
		c := word[i]
		var k class
		size := 1
		if c < utf8.RuneSelf {
			k = asciiClass[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(word[i:])
			k = classOf(r)
		}
		if k == other {
			k = caseless
		}
		switch k {
		case underscore:
			if start >= 0 {
				fn(word[start:i])
				start = -1
			}
			i += size
			continue
		case mark:
			if start < 0 {
				start, prev, upper = i, caseless, -1
			}
			i += size
			continue
		}
		if start >= 0 {
			cut := -1
			switch {
			case (prev == digit) != (k == digit):
				cut = i
			case k == upperCase && (prev == lowerCase || prev == caseless):
				cut = i
			case k == lowerCase && prev == upperCase && upper >= 2 && !plural(word, i):
				cut = prevAt
			}
			if cut >= 0 {
				if cut > start {
					fn(word[start:cut])
				}
				start, upper = cut, 0
				if cut == prevAt {
					upper = 1
				}
			}
		} else {
			start, upper = i, 0
		}
		if k == upperCase {
			if upper >= 0 {
				upper++
			}
		} else {
			upper = -1
		}
		prev, prevAt = k, i
		i += size
	}
	if start >= 0 {
		fn(word[start:])
	}
}

// single reports whether word is its own only part.
func single(word string) bool {
	if WholePart(word) {
		return true
	}
	n, whole := 0, false
	EachPart(word, func(p string) { n, whole = n+1, len(p) == len(word) })
	return n == 1 && whole
}

// ASCIIWordAround returns the bounds [lo, hi) of the word EachWord yields
// that holds byte i of text, when that word is all ASCII. ok is false when
// text[i] is not an ASCII letter, digit or underscore, when the run of
// them holding it borders a non-ASCII byte (the word may go on there), or
// when the run has no letter or digit (it is no word).
func ASCIIWordAround(text string, i int) (lo, hi int, ok bool) {
	if i < 0 || i >= len(text) || text[i] >= utf8.RuneSelf || asciiClass[text[i]] == other {
		return 0, 0, false
	}
	alnum := false
	lo = i
	for lo > 0 {
		c := text[lo-1]
		if c >= utf8.RuneSelf {
			return 0, 0, false
		}
		if asciiClass[c] == other {
			break
		}
		lo--
	}
	for hi = lo; hi < len(text); hi++ {
		c := text[hi]
		if c >= utf8.RuneSelf {
			return 0, 0, false
		}
		k := asciiClass[c]
		if k == other {
			break
		}
		alnum = alnum || k != underscore
	}
	return lo, hi, alnum
}

// WholePart reports, cheaply, that EachPart yields word alone: ASCII
// lower-case letters after an optional capital ("returns", "Returns"), or
// ASCII digits ("128"). It is a cheap check for most words of prose and
// code; other words may be their own only part too.
func WholePart(word string) bool {
	if word == "" {
		return false
	}
	c := word[0]
	if '0' <= c && c <= '9' {
		for i := 1; i < len(word); i++ {
			if word[i] < '0' || word[i] > '9' {
				return false
			}
		}
		return true
	}
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
		return false
	}
	for i := 1; i < len(word); i++ {
		if word[i] < 'a' || word[i] > 'z' {
			return false
		}
	}
	return true
}

// plural reports whether the lower-case letter at word[i] is a lone "s"
// ending a capital run (URLs, IDs): the next rune is not a lower-case
// letter.
func plural(word string, i int) bool {
	if word[i] != 's' {
		return false
	}
	j := i + 1
	if j >= len(word) {
		return true
	}
	if c := word[j]; c < utf8.RuneSelf {
		return asciiClass[c] != lowerCase
	}
	r, _ := utf8.DecodeRuneInString(word[j:])
	return classOf(r) != lowerCase
}

type class uint8

const (
	other class = iota // separates words
	underscore
	digit
	lowerCase
	upperCase
	caseless // letter without case
	mark     // combining mark
)

var asciiClass = func() (t [utf8.RuneSelf]class) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = lowerCase
		t[c-'a'+'A'] = upperCase
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = digit
	}
	t['_'] = underscore
	return t
}()

// classOf classifies a non-ASCII rune.
func classOf(r rune) class {
	switch {
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return upperCase
	case unicode.IsLower(r):
		return lowerCase
	case unicode.IsLetter(r):
		return caseless
	case unicode.IsDigit(r):
		return digit
	case unicode.IsMark(r):
		return mark
	case r == '\u203F' || r == '\u2040' || r == '\uFE33' || r == '\uFE34' || r == '\uFE4D' || r == '\uFE4E' || r == '\uFE4F' || r == '\uFF3F':
		return underscore // other connector punctuation (Pc)
	}
	return other
}

// FenceMarker returns the run of 3 or more backticks or tildes opening a
// Markdown code fence on line (after at most 3 spaces), or "".
func FenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// Indent is the width of a line's leading white space, a tab counting 4.
func Indent(line string) int {
	n := 0
	for _, r := range line {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}
