package local

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// TextVersion names the text preparation below; it is part of the embedder
// ID, so changing CodeText or QueryText must bump it.
const TextVersion = "t1"

// codeKeywords are language keywords and builtin type names that carry no
// meaning a user would search for; CodeText drops them.
var codeKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`func return if else for range var const type struct interface package import
		nil err true false break continue switch case default go defer chan map select
		goto fallthrough def self class elif lambda none pass yield async await try
		except finally raise with let function this new null undefined void public private
		protected static final int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64
		float32 float64 string bool byte rune any error fn mut impl pub use mod
		enum match where unsafe extern typedef sizeof include define ifdef endif
		char long short double unsigned signed auto then end do done fi esac echo`) {
		m[w] = true
	}
	return m
}()

// Normalize collapses every run of Unicode white space to one space and
// trims both ends. The tokenizer treats only U+0020 as a word boundary, so
// tabs and newlines would otherwise glue words together.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// CodeText turns a code chunk into the words a sentence encoder can use:
// the path's directory and file-name words (extension dropped), then every
// identifier and comment word of text, identifiers split at underscores,
// lower→upper case changes, acronym ends (HTTPServer → HTTP Server) and
// letter/digit boundaries, all lower-cased, with punctuation and the
// keywords of common languages removed. Words are separated by one space.
func CodeText(path, text string) string {
	var b strings.Builder
	b.Grow(len(path) + len(text))
	if path != "" {
		if i := strings.LastIndexByte(path, '.'); i > strings.LastIndexByte(path, '/')+1 {
			path = path[:i]
		}
		appendWords(&b, path)
	}
	appendWords(&b, text)
	return b.String()
}

// appendWords appends the split, lower-cased, keyword-free words of s to b.
func appendWords(b *strings.Builder, s string) {
	start := -1
	for i, r := range s {
		word := isWordRune(r)
		if word && start < 0 {
			start = i
		} else if !word && start >= 0 {
			appendIdent(b, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		appendIdent(b, s[start:])
	}
}

// isWordRune reports whether r belongs to an identifier or word: a letter,
// a number or '_'.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// SplitIdentifier splits an identifier into its words: at underscores,
// lower→upper and acronym→word case changes, and letter/number boundaries.
// SplitIdentifier("parseHTTPRequest_v2") == ["parse", "HTTP", "Request", "v", "2"].
func SplitIdentifier(id string) []string {
	var out []string
	forEachPart(id, func(w string) { out = append(out, w) })
	return out
}

func appendIdent(b *strings.Builder, id string) {
	forEachPart(id, func(w string) {
		lw := w
		if hasUpper(w) {
			lw = strings.ToLower(w)
		}
		if codeKeywords[lw] {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(lw)
	})
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// forEachPart calls f with each word of identifier id, in order. It splits
// at '_', between a lower- and an upper-case letter, between a number and a
// letter either way, and before the last capital of an acronym followed by a
// lower-case letter (HTTPServer → HTTP Server).
func forEachPart(id string, f func(string)) {
	if textsplit.WholePart(id) { // lower-case after a capital, or digits: one part
		f(id)
		return
	}
	const (
		other = iota
		lower
		upper
		letter // neither case (CJK, ...)
		number
	)
	kind := func(r rune) int {
		switch {
		case unicode.IsUpper(r):
			return upper
		case unicode.IsLower(r):
			return lower
		case unicode.IsLetter(r):
			return letter
		case unicode.IsNumber(r):
			return number
		}
		return other
	}
	isLetter := func(k int) bool { return k == lower || k == upper || k == letter }
	start := 0
	prev, prev2 := other, other
	prevStart := 0 // byte offset of the previous rune
	for i, r := range id {
		if r == '_' {
			if i > start {
				f(id[start:i])
			}
			start = i + 1
			prev, prev2 = other, other
			continue
		}
		k := kind(r)
		switch {
		case i == start:
		case prev == lower && k == upper,
			prev == number && isLetter(k),
			isLetter(prev) && k == number:
			f(id[start:i])
			start = i
		case prev2 == upper && prev == upper && k == lower && prevStart > start:
			f(id[start:prevStart])
			start = prevStart
		}
		prev2, prev = prev, k
		prevStart = i
	}
	if start < len(id) {
		f(id[start:])
	}
}

// QueryText prepares a search query: white space normalised, and for a code
// query the identifiers that carry an underscore or an inner capital
// (HasPrefix, read_file) are split into lower-case words, as CodeText does
// for the code itself. Other words are kept as typed.
func QueryText(kind, s string) string {
	s = Normalize(s)
	if kind != "code" {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, f := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(splitQueryWord(f))
	}
	return b.String()
}

// splitQueryWord splits the identifier runs of w that look like code.
func splitQueryWord(w string) string {
	if !strings.ContainsRune(w, '_') && !innerUpper(w) {
		return w
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		id := w[start:end]
		first := true
		forEachPart(id, func(p string) {
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(strings.ToLower(p))
		})
		start = -1
	}
	for i, r := range w {
		word := isWordRune(r)
		if word && start < 0 {
			start = i
		} else if !word {
			if start >= 0 {
				flush(i)
			}
			b.WriteRune(r)
		}
	}
	if start >= 0 {
		flush(len(w))
	}
	return b.String()
}

// innerUpper reports whether an upper-case letter follows a lower-case one.
func innerUpper(w string) bool {
	prevLower := false
	for _, r := range w {
		if prevLower && unicode.IsUpper(r) {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}
