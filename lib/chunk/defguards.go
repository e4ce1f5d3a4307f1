package chunk

import "strings"

// defGuards[i] is a cheap test every line defPatterns[i] matches passes
// (a necessary condition, never a sufficient one): most lines of code
// define nothing, and the guards spare them the regular expressions.
// Results are those of the patterns alone.
var defGuards = []func(string) bool{
	// A keyword definition: the keyword is a whole token between regexp
	// \s characters (line start or a modifier's \s+ before it, \s+ after).
	func(l string) bool {
		for tok := range strings.FieldsFuncSeq(l, isRegexpSpace) {
			if defKeywords[tok] {
				return true
			}
		}
		return false
	},
	func(l string) bool { return strings.HasPrefix(l, "func") },
	func(l string) bool {
		return strings.IndexByte(l, '=') >= 0 &&
			(strings.Contains(l, "const") || strings.Contains(l, "let") || strings.Contains(l, "var"))
	},
	func(l string) bool { return strings.Contains(l, "function") },
	func(l string) bool {
		return strings.IndexByte(l, '=') >= 0 && (strings.Contains(l, "exports.") || strings.Contains(l, ".prototype."))
	},
	func(l string) bool {
		return strings.IndexByte(l, ':') >= 0 && (strings.Contains(l, "const") || strings.Contains(l, "static"))
	},
	func(l string) bool { return strings.HasPrefix(l, "#") },
	// "(" with no ";" after it: then the last "(" has none after it.
	func(l string) bool {
		i := strings.LastIndexByte(l, '(')
		return i >= 0 && strings.IndexByte(l[i:], ';') < 0
	},
	func(l string) bool { return containsFoldASCII(l, "create") },
}

// defKeywords are the definition keywords of defPatterns[0] ("function*"
// is "function\*?").
var defKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields("func function function* def class fn struct enum trait interface type module mod union protocol record object impl macro_rules! fun sub proc namespace") {
		defKeywords[k] = true
	}
}

// isRegexpSpace is regexp's \s: [\t\n\f\r ].
func isRegexpSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// containsFoldASCII reports whether s holds lower (ASCII lower-case
// letters without a Unicode fold partner outside ASCII) in any case.
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) && s[i+j]|0x20 == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}
