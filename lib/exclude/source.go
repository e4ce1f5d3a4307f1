package exclude

import (
	"regexp/syntax"
	"strings"
)

// Sources of parts of a pattern. A pattern's alternatives are compiled
// one by one (secret.go, redact.go), so each needs a source. Printing a
// parsed tree (syntax.Regexp.String) checks the case folding of every
// rune of every character class, ~1-10 ms for a class such as \S or
// [^"'], which made the built-in redaction rules cost ~0.2 s of CPU to
// compile, on the path of a server's start. The pattern as written is
// usually the source wanted, or a piece of it: sourceOf tries such
// pieces and keeps one only when it parses to the same tree.

// sourceOf returns a source that parses (syntax.Perl) to re: the first of
// cands whose tree equals re, else re.String().
func sourceOf(re *syntax.Regexp, cands ...string) string {
	for _, c := range cands {
		if t, err := syntax.Parse(c, syntax.Perl); err == nil && t.Equal(re) {
			return c
		}
	}
	return re.String()
}

// subSources returns a source for each of subs, the alternatives
// compiled for pattern (whose tree is tree): the pattern itself when subs
// is the whole tree, else the pieces alternativeSources finds, each kept
// only if it parses to its alternative.
func subSources(pattern string, tree *syntax.Regexp, subs []*syntax.Regexp) []string {
	srcs := make([]string, len(subs))
	var pieces []string
	if len(subs) > 1 {
		pieces = alternativeSources(pattern)
	}
	for i, sub := range subs {
		switch {
		case sub == tree:
			srcs[i] = pattern
		case len(pieces) == len(subs):
			srcs[i] = sourceOf(sub, pieces[i])
		default:
			srcs[i] = sourceOf(sub)
		}
	}
	return srcs
}

// alternativeSources splits pattern at its top-level '|' (outside
// groups, classes and escapes) and prefixes every piece after the first
// with the flag group the pattern starts with, if any ("(?i)a|b" gives
// "(?i)a", "(?i)b"). The pieces are candidates for sourceOf.
func alternativeSources(pattern string) []string {
	var pieces []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++ // the escaped byte (a multi-byte rune's other bytes are never special)
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			// A ']' right after '[' or '[^' is a member, not the end.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			pieces = append(pieces, pattern[start:i])
			start = i + 1
		}
	}
	pieces = append(pieces, pattern[start:])
	if flags := leadingFlags(pattern); flags != "" {
		for i := 1; i < len(pieces); i++ {
			pieces[i] = flags + pieces[i]
		}
	}
	return pieces
}

// leadingFlags returns the flag group src starts with ("(?i)", "(?im)"),
// or "".
func leadingFlags(src string) string {
	if !strings.HasPrefix(src, "(?") {
		return ""
	}
	for i := 2; i < len(src); i++ {
		switch c := src[i]; {
		case c == ')':
			if i == 2 {
				return ""
			}
			return src[:i+1]
		case c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		default:
			return "" // a group with a body, such as "(?:" or "(?P<"
		}
	}
	return ""
}

// withoutLeadingBoundary returns src without the \b it starts with (after
// its flag group, if any), a candidate for the tree of src with that
// assertion dropped; "" when src does not start so.
func withoutLeadingBoundary(src string) string {
	flags := leadingFlags(src)
	if rest, ok := strings.CutPrefix(src[len(flags):], `\b`); ok {
		return flags + rest
	}
	return ""
}
