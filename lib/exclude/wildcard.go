package exclude

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// segment matches one path segment (a name without "/").
type segment struct {
	kind segKind
	lit  string  // segLiteral, segPrefix, segSuffix
	toks []token // segGeneric
}

type segKind uint8

const (
	segLiteral    segKind = iota // exact name
	segStar                      // "*": any name
	segPrefix                    // "lit*"
	segSuffix                    // "*lit", e.g. "*.pem"
	segGeneric                   // anything else, matched token by token
	segDoubleStar                // "**" as a whole segment
)

type tokKind uint8

const (
	tokLit   tokKind = iota // one rune
	tokAny                  // "?"
	tokStar                 // "*"
	tokClass                // "[...]"
)

type token struct {
	kind  tokKind
	r     rune
	class *class
}

// class is a bracket expression.
type class struct {
	negate bool
	ranges []rune // lo, hi pairs
	named  []func(rune) bool
}

func (c *class) has(r rune) bool {
	in := false
	for i := 0; i+1 < len(c.ranges) && !in; i += 2 {
		in = c.ranges[i] <= r && r <= c.ranges[i+1]
	}
	for _, f := range c.named {
		if in {
			break
		}
		in = f(r)
	}
	return in != c.negate
}

// compileSegment parses one segment of a pattern.
func compileSegment(s string) (segment, error) {
	if s == "**" {
		return segment{kind: segDoubleStar}, nil
	}
	toks, err := tokenize(s)
	if err != nil {
		return segment{}, err
	}
	// Collapse consecutive stars: "a**b" behaves like "a*b".
	out := toks[:0]
	for _, t := range toks {
		if t.kind == tokStar && len(out) > 0 && out[len(out)-1].kind == tokStar {
			continue
		}
		out = append(out, t)
	}
	toks = out
	lit, onlyLits := literalOf(toks)
	switch {
	case onlyLits:
		return segment{kind: segLiteral, lit: lit}, nil
	case len(toks) == 1 && toks[0].kind == tokStar:
		return segment{kind: segStar}, nil
	case toks[0].kind == tokStar:
		if l, ok := literalOf(toks[1:]); ok {
			return segment{kind: segSuffix, lit: l}, nil
		}
	case toks[len(toks)-1].kind == tokStar:
		if l, ok := literalOf(toks[:len(toks)-1]); ok {
			return segment{kind: segPrefix, lit: l}, nil
		}
	}
	return segment{kind: segGeneric, toks: toks}, nil
}

// literalOf returns the string of toks when they are all literal runes.
func literalOf(toks []token) (string, bool) {
	var b strings.Builder
	for _, t := range toks {
		if t.kind != tokLit {
			return "", false
		}
		b.WriteRune(t.r)
	}
	return b.String(), true
}

func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\\':
			if i+1 >= len(s) {
				return nil, errors.New(`trailing "\" escapes nothing`)
			}
			r, w2 := utf8.DecodeRuneInString(s[i+1:])
			toks = append(toks, token{kind: tokLit, r: r})
			i += 1 + w2
			continue
		case '*':
			toks = append(toks, token{kind: tokStar})
		case '?':
			toks = append(toks, token{kind: tokAny})
		case '[':
			c, n, err := parseClass(s[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokClass, class: c})
			i += n
			continue
		default:
			toks = append(toks, token{kind: tokLit, r: r})
		}
		i += w
	}
	return toks, nil
}

var posixClasses = map[string]func(rune) bool{
	"alnum":  func(r rune) bool { return isAlpha(r) || isDigit(r) },
	"alpha":  isAlpha,
	"blank":  func(r rune) bool { return r == ' ' || r == '\t' },
	"cntrl":  func(r rune) bool { return r < 0x20 || r == 0x7f },
	"digit":  isDigit,
	"graph":  func(r rune) bool { return r > 0x20 && r < 0x7f },
	"lower":  func(r rune) bool { return 'a' <= r && r <= 'z' },
	"print":  func(r rune) bool { return r >= 0x20 && r < 0x7f },
	"punct":  func(r rune) bool { return r > 0x20 && r < 0x7f && !isAlpha(r) && !isDigit(r) },
	"space":  func(r rune) bool { return r == ' ' || ('\t' <= r && r <= '\r') },
	"upper":  func(r rune) bool { return 'A' <= r && r <= 'Z' },
	"xdigit": func(r rune) bool { return isDigit(r) || ('a' <= r && r <= 'f') || ('A' <= r && r <= 'F') },
}

func isAlpha(r rune) bool { return ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') }
func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// parseClass parses a bracket expression at the start of s ("[...]") and
// returns it with the number of bytes consumed.
func parseClass(s string) (*class, int, error) {
	c := &class{}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		c.negate = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return nil, 0, errors.New(`unterminated "[" (escape a literal bracket as "\[")`)
		}
		if s[i] == ']' && !first {
			return c, i + 1, nil
		}
		first = false
		if strings.HasPrefix(s[i:], "[:") {
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return nil, 0, errors.New(`unterminated "[:" character class`)
			}
			name := s[i+2 : i+2+end]
			f, ok := posixClasses[name]
			if !ok {
				return nil, 0, errors.New(`unknown character class "[:` + name + `:]"`)
			}
			c.named = append(c.named, f)
			i += 2 + end + 2
			continue
		}
		lo, n, err := classRune(s[i:])
		if err != nil {
			return nil, 0, err
		}
		i += n
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n, err = classRune(s[i+1:])
			if err != nil {
				return nil, 0, err
			}
			i += 1 + n
			if hi < lo {
				return nil, 0, errors.New("character range is out of order")
			}
		}
		c.ranges = append(c.ranges, lo, hi)
	}
}

// classRune decodes one possibly escaped rune inside a bracket expression.
func classRune(s string) (rune, int, error) {
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, errors.New(`unterminated "["`)
		}
		r, w := utf8.DecodeRuneInString(s[1:])
		return r, 1 + w, nil
	}
	r, w := utf8.DecodeRuneInString(s)
	return r, w, nil
}

// match reports whether name (one path segment) matches.
func (g *segment) match(name string) bool {
	switch g.kind {
	case segLiteral:
		return name == g.lit
	case segStar, segDoubleStar:
		return true
	case segPrefix:
		return strings.HasPrefix(name, g.lit)
	case segSuffix:
		return strings.HasSuffix(name, g.lit)
	}
	return matchTokens(g.toks, name)
}

// matchTokens is the classic wildcard matcher with one backtrack point per
// star, linear in len(name) times the number of stars.
func matchTokens(toks []token, name string) bool {
	ti, ni := 0, 0
	starTi, starNi := -1, 0
	for ni < len(name) || ti < len(toks) {
		if ti < len(toks) {
			t := toks[ti]
			if t.kind == tokStar {
				starTi, starNi = ti, ni
				ti++
				continue
			}
			if ni < len(name) {
				r, w := utf8.DecodeRuneInString(name[ni:])
				ok := false
				switch t.kind {
				case tokLit:
					ok = r == t.r
				case tokAny:
					ok = true
				case tokClass:
					ok = t.class.has(r)
				}
				if ok {
					ti++
					ni += w
					continue
				}
			}
		}
		if starTi < 0 || starNi >= len(name) {
			return false
		}
		_, w := utf8.DecodeRuneInString(name[starNi:])
		starNi += w
		ti, ni = starTi+1, starNi
	}
	return true
}
