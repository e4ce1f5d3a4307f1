package chunk

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// defPatterns find the names a line of code defines, in the common shapes
// of many languages; the first submatch is the name. They only need to be
// right often: a missed or extra name shifts ranking a little, nothing else.
// Compiled on first use, not at every command's start.
var defPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// Keyword definitions, after any modifiers: Go, Python, Rust, JS/TS,
		// Ruby, Swift, Kotlin, Scala, PHP, C#, Java types, shell functions.
		regexp.MustCompile(`^\s*(?:(?:pub(?:\([^)]*\))?|export|default|async|static|public|private|protected|internal|final|abstract|override|open|sealed|partial|declare|unsafe|extern(?:\s+"[^"]*")?|inline|virtual|data|case|suspend)\s+)*` +
			`(?:func|function\*?|def|class|fn|struct|enum|trait|interface|type|module|mod|union|protocol|record|object|impl|macro_rules!|fun|sub|proc|namespace)\s+([A-Za-z_$][\w$]*)`),
		// Go methods: func (r *T) Name(.
		regexp.MustCompile(`^func\s*\([^)]*\)\s*([A-Za-z_]\w*)`),
		// JS/TS: const name = function / arrow; name: function; a.b.name = function.
		regexp.MustCompile(`^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)`),
		regexp.MustCompile(`^\s*([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?function\b`),
		regexp.MustCompile(`^\s*(?:module\.)?(?:exports|[A-Za-z_$][\w$]*\.prototype)\.([A-Za-z_$][\w$]*)\s*=`),
		// Constants and statics: Rust/TS/C# const NAME:, C #define NAME.
		regexp.MustCompile(`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?([A-Z][A-Z0-9_]+)\s*:`),
		regexp.MustCompile(`^#\s*define\s+([A-Za-z_]\w*)`),
		// C-family functions and Java/C# methods: a type, a name, "(" and no
		// ";" on the line (a declaration ends with one, a definition does not).
		regexp.MustCompile(`^\s*(?:[A-Za-z_][\w<>\[\],.*&:]*\s+)+\**([A-Za-z_]\w*)\s*\([^;]*$`),
		// SQL.
		regexp.MustCompile(`(?i)^\s*create\s+(?:or\s+replace\s+)?(?:function|procedure|table|view|type|index|trigger)\s+(?:if\s+not\s+exists\s+)?([\w.]+)`),
	}
})

// notNames are words the C-family pattern mistakes for a defined name.
var notNames = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "catch": true,
	"sizeof": true, "else": true, "new": true, "throw": true, "elif": true, "await": true, "typeof": true,
	"case": true, "yield": true, "delete": true, "raise": true, "assert": true, "del": true, "print": true,
	"echo": true, "goto": true, "do": true, "with": true, "lambda": true, "not": true, "and": true, "or": true,
	"in": true, "of": true, "then": true, "try": true, "except": true, "finally": true, "defer": true, "go": true,
}

// DefinedName returns the name a line of code defines ("" for none), by
// the common definition shapes of many languages: "func (r *T) Next(" →
// Next, "pub fn read_frame(" → read_frame, "class Executor:" → Executor.
func DefinedName(line string) string {
	if len(line) > 400 || strings.TrimSpace(line) == "" {
		return ""
	}
	if notNames[strings.TrimRight(firstField(line), "(:;")] {
		return "" // a statement: "return rmtree(x)", "if (ok)"
	}
	for i, re := range defPatterns() {
		if !defGuards[i](line) {
			continue
		}
		if m := re.FindStringSubmatch(line); m != nil && !notNames[m[1]] {
			return m[1]
		}
	}
	return ""
}

// firstField is strings.Fields(line)[0] without the slice; line holds a
// non-space character.
func firstField(line string) string {
	line = strings.TrimLeftFunc(line, unicode.IsSpace)
	if i := strings.IndexFunc(line, unicode.IsSpace); i >= 0 {
		return line[:i]
	}
	return line
}

// definedNames returns the distinct names lines [s, e) define, in order,
// space-separated and capped at maxContext bytes ("" for none). Each
// line's name is found once per text (windows overlap).
func (x *lineIndex) definedNames(s, e int) string {
	var b strings.Builder
	seen := map[string]bool{}
	for i := s; i < e && i < x.n(); i++ {
		name := x.definedName(i)
		if name == "" || seen[name] {
			continue
		}
		if b.Len()+len(name)+1 > maxContext {
			break
		}
		seen[name] = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
	}
	return b.String()
}

// definedName is DefinedName of line i, remembered.
func (x *lineIndex) definedName(i int) string {
	if x.defs == nil {
		x.defs = make([]string, x.n())
		x.defsKnown = make([]bool, x.n())
	}
	if !x.defsKnown[i] {
		x.defs[i], x.defsKnown[i] = DefinedName(x.line(i)), true
	}
	return x.defs[i]
}
