package grep

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Case modes of a pattern.
const (
	CaseSensitive   = "sensitive"
	CaseInsensitive = "insensitive"
	// CaseSmart is insensitive unless the pattern has an upper-case letter.
	CaseSmart = "smart"
)

// CaseModes are the case modes a pattern accepts, the default first.
var CaseModes = []string{CaseSensitive, CaseInsensitive, CaseSmart}

// Limits on patterns: a pattern is at most MaxPatternBytes long and
// compiles to at most MaxProgram RE2 instructions, so a search costs at
// most about MaxProgram steps per byte of text (RE2 never backtracks).
const (
	MaxPatternBytes = 1024
	MaxProgram      = 2000
)

// minRequired is the shortest required literal worth finding lines by
// (shorter ones are on most lines).
const minRequired = 3

// Pattern is what to look for.
type Pattern struct {
	Expr string
	// Literal takes Expr as a fixed string, not a regular expression.
	Literal bool
	// Case is one of CaseModes ("" = sensitive).
	Case string
}

// Matcher finds the lines of a text that a Pattern matches. Matches never
// span lines: a regular expression is rewritten so that nothing in it
// matches a newline, ^ and $ match at line boundaries (as do \A and \z),
// and a pattern that needs a newline is refused.
type Matcher struct {
	// literal is a case-sensitive fixed string, matched with strings.Index.
	literal string
	re      *regexp.Regexp
	// required is a case-sensitive string every match contains, used to
	// find candidate lines before running re ("" = none).
	required string
	// insts is the size of re's program, the per-byte cost of running it.
	insts int
	// filter is the trigram query a text must satisfy to hold a match.
	filter *query
}

// Compile checks p and builds its Matcher. Errors name the field at fault
// ("pattern" or "case") with INVALID_FIELD or INVALID_RANGE.
func Compile(p Pattern) (*Matcher, error) {
	if n := len(p.Expr); n > MaxPatternBytes {
		return nil, errcode.FieldError(errcode.InvalidRange, "pattern", "pattern is %d bytes long; at most %d are allowed", n, MaxPatternBytes)
	}
	if p.Expr == "" {
		return nil, errcode.FieldError(errcode.MissingField, "pattern", "pattern must not be empty")
	}
	if !utf8.ValidString(p.Expr) {
		return nil, errcode.FieldError(errcode.InvalidField, "pattern", "pattern is not valid UTF-8")
	}
	switch p.Case {
	case "", CaseSensitive, CaseInsensitive, CaseSmart:
	default:
		return nil, errcode.NotOneOf("case", p.Case, CaseModes)
	}
	if p.Literal {
		if strings.ContainsRune(p.Expr, '\n') {
			return nil, errcode.FieldError(errcode.InvalidField, "pattern", "pattern contains a newline; grep matches within one line")
		}
		fold := p.Case == CaseInsensitive || p.Case == CaseSmart && !hasUpper(p.Expr)
		if !fold {
			return &Matcher{literal: p.Expr, required: p.Expr, insts: 1, filter: literalQuery(p.Expr, false)}, nil
		}
		p.Expr = regexp.QuoteMeta(p.Expr)
		p.Case = CaseInsensitive
	}
	return compileRegexp(p)
}

func compileRegexp(p Pattern) (*Matcher, error) {
	flags := syntax.Perl &^ (syntax.OneLine | syntax.ClassNL)
	tree, err := syntax.Parse(p.Expr, flags)
	if err != nil {
		return nil, badPattern(err)
	}
	if p.Case == CaseInsensitive || p.Case == CaseSmart && !literalHasUpper(tree) {
		if tree, err = syntax.Parse(p.Expr, flags|syntax.FoldCase); err != nil {
			return nil, badPattern(err)
		}
	}
	if err := withinLines(tree); err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, badPattern(err)
	}
	if n := len(prog.Inst); n > MaxProgram {
		return nil, errcode.FieldError(errcode.InvalidRange, "pattern",
			"pattern compiles to %d instructions; at most %d are allowed (use fewer alternatives or smaller repetition counts)", n, MaxProgram)
	}
	re, err := regexp.Compile(tree.String())
	if err != nil {
		return nil, badPattern(err)
	}
	m := &Matcher{re: re, insts: len(prog.Inst), filter: regexpQuery(tree)}
	if lit := requiredLiteral(tree); len(lit) >= minRequired {
		m.required = lit
	}
	return m, nil
}

func badPattern(err error) error {
	var se *syntax.Error
	if errors.As(err, &se) {
		return errcode.FieldError(errcode.InvalidField, "pattern", "pattern is not a valid RE2 expression: %s: %s", se.Code, se.Expr)
	}
	return errcode.FieldError(errcode.InvalidField, "pattern", "pattern is not a valid RE2 expression: %v", err)
}

// withinLines rewrites re in place so that it cannot match a newline:
// character classes lose "\n", any-char becomes any-char-but-newline,
// text anchors become line anchors. A literal newline is an error.
func withinLines(re *syntax.Regexp) error {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r == '\n' {
				return errcode.FieldError(errcode.InvalidField, "pattern", "pattern contains a newline; grep matches within one line")
			}
		}
	case syntax.OpCharClass:
		re.Rune = withoutNewline(re.Rune)
		if len(re.Rune) == 0 {
			re.Op = syntax.OpNoMatch
		}
	case syntax.OpAnyChar:
		re.Op = syntax.OpAnyCharNotNL
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op, re.Flags = syntax.OpEndLine, re.Flags&^syntax.WasDollar
	}
	for _, sub := range re.Sub {
		if err := withinLines(sub); err != nil {
			return err
		}
	}
	return nil
}

// withoutNewline removes '\n' from a class given as sorted rune ranges.
func withoutNewline(ranges []rune) []rune {
	out := make([]rune, 0, len(ranges)+2)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo > '\n' || hi < '\n' {
			out = append(out, lo, hi)
			continue
		}
		if lo < '\n' {
			out = append(out, lo, '\n'-1)
		}
		if hi > '\n' {
			out = append(out, '\n'+1, hi)
		}
	}
	return out
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	best := ""
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 {
			if s := string(r.Rune); len(s) > len(best) {
				best = s
			}
		}
	}
	consider(re)
	if re.Op == syntax.OpConcat {
		for _, sub := range re.Sub {
			consider(sub)
		}
	}
	return best
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// literalHasUpper reports whether a literal of re has an upper-case
// letter (escapes such as \S or \W are not literals).
func literalHasUpper(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral && hasUpper(string(re.Rune)) {
		return true
	}
	for _, sub := range re.Sub {
		if literalHasUpper(sub) {
			return true
		}
	}
	return false
}
