package pdf

// Token kinds of the CMap tokenizer.
const (
	tokString  = iota // <hex> or (literal)
	tokArray          // [ strings ]
	tokKeyword        // operators
	tokOther          // numbers, names, dictionaries' delimiters
)

type cmapTok struct {
	kind int
	s    string
	list []string // tokArray: its strings
}

// cmapLexer tokenizes the PostScript subset used by CMaps.
type cmapLexer struct {
	data []byte
	pos  int
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	return isSpace(c) || c == '<' || c == '>' || c == '[' || c == ']' || c == '(' || c == ')' || c == '/' || c == '{' || c == '}' || c == '%'
}

func (l *cmapLexer) next() (cmapTok, bool) {
	d := l.data
	for l.pos < len(d) {
		c := d[l.pos]
		switch {
		case isSpace(c):
			l.pos++
		case c == '%':
			for l.pos < len(d) && d[l.pos] != '\n' && d[l.pos] != '\r' {
				l.pos++
			}
		case c == '<' && l.pos+1 < len(d) && d[l.pos+1] == '<', c == '>' && l.pos+1 < len(d) && d[l.pos+1] == '>':
			l.pos += 2
			return cmapTok{kind: tokOther}, true
		case c == '<':
			return cmapTok{kind: tokString, s: l.hex()}, true
		case c == '(':
			return cmapTok{kind: tokString, s: l.literal()}, true
		case c == '[':
			l.pos++
			var list []string
			for {
				t, ok := l.next()
				if !ok || t.kind == tokOther && t.s == "]" {
					break
				}
				if t.kind == tokString {
					list = append(list, t.s)
				}
			}
			return cmapTok{kind: tokArray, list: list}, true
		case c == ']':
			l.pos++
			return cmapTok{kind: tokOther, s: "]"}, true
		case c == '/':
			l.pos++
			l.word()
			return cmapTok{kind: tokOther}, true
		case c == '{' || c == '}' || c == ')' || c == '>':
			l.pos++
		default:
			w := l.word()
			if w == "" {
				l.pos++
				continue
			}
			if (w[0] >= '0' && w[0] <= '9') || w[0] == '-' || w[0] == '+' || w[0] == '.' {
				return cmapTok{kind: tokOther, s: w}, true
			}
			return cmapTok{kind: tokKeyword, s: w}, true
		}
	}
	return cmapTok{}, false
}

func (l *cmapLexer) word() string {
	start := l.pos
	for l.pos < len(l.data) && !isDelim(l.data[l.pos]) {
		l.pos++
	}
	return string(l.data[start:l.pos])
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hex reads <...>; an odd final digit is padded with 0.
func (l *cmapLexer) hex() string {
	l.pos++ // <
	var out []byte
	var hi byte
	half := false
	for l.pos < len(l.data) && l.data[l.pos] != '>' {
		if v, ok := unhex(l.data[l.pos]); ok {
			if half {
				out = append(out, hi<<4|v)
			} else {
				hi = v
			}
			half = !half
		}
		l.pos++
	}
	if half {
		out = append(out, hi<<4)
	}
	l.pos++ // >
	return string(out)
}

// literal reads (...) with nesting and the common escapes.
func (l *cmapLexer) literal() string {
	l.pos++ // (
	var out []byte
	depth := 1
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return string(out)
			}
		case '\\':
			if l.pos >= len(l.data) {
				return string(out)
			}
			e := l.data[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.data) && l.data[l.pos] >= '0' && l.data[l.pos] <= '7'; k++ {
						v = v*8 + int(l.data[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return string(out)
}
