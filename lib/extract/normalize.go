package extract

import (
	"strings"
	"unicode/utf8"
)

// normalize strips leading U+FEFFs (a byte-order mark, doubled when a tool
// added one to a file that had one), turns CRLF and lone CR into "\n" and
// replaces every other control character (C0 except tab and newline, DEL,
// C1) and every other U+FEFF (invisible; at the start of a text, as after
// HTML's leading white space is dropped, it reads as a byte-order mark)
// with one space, so the line count and the rune columns of s are kept.
// s must be valid UTF-8. It returns the result, how many of the replaced
// characters are ones text files do not contain (all but form feed,
// vertical tab and escape), and the rune count of s when that is non-zero.
func normalize(s string) (out string, ctrl, runes int) {
	s = strings.TrimLeft(s, bom)
	first := firstToFix(s)
	if first < 0 {
		return s, 0, 0
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:first]...)
	for i := first; i < len(s); {
		c := s[i]
		switch {
		case c == '\r':
			buf = append(buf, '\n')
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			i++
		case c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7F):
			buf = append(buf, c)
			i++
		case c < 0x20 || c == 0x7F:
			if c != '\f' && c != '\v' && c != 0x1B {
				ctrl++
			}
			buf = append(buf, ' ')
			i++
		case c == 0xC2 && i+1 < len(s) && s[i+1] < 0xA0:
			// U+0080–U+009F (C1 controls) encode as C2 80–C2 9F.
			ctrl++
			buf = append(buf, ' ')
			i += 2
		case isBOMAt(s, i):
			buf = append(buf, ' ')
			i += len(bom)
		default:
			buf = append(buf, c)
			i++
		}
	}
	if ctrl > 0 {
		runes = utf8.RuneCountInString(s)
	}
	return string(buf), ctrl, runes
}

// firstToFix returns the index of the first byte normalize must change,
// or -1 when s is already normal.
func firstToFix(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 || c >= 0x7F) && isCtrlAt(s, i) {
			return i
		}
	}
	return -1
}

// sanitize replaces control characters other than tab and newline (CR
// included) and U+FEFF with a space. It is for text built from decoded HTML entities,
// where a CR is not a line break of the source.
func sanitize(s string) string {
	fix := -1
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\r' || isCtrlAt(s, i) {
			fix = i
			break
		}
	}
	if fix < 0 {
		return s
	}
	buf := make([]byte, 0, len(s))
	buf = append(buf, s[:fix]...)
	for i := fix; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r' || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F:
			buf = append(buf, ' ')
		case c == 0xC2 && i+1 < len(s) && s[i+1] < 0xA0:
			buf = append(buf, ' ')
			i++
		case isBOMAt(s, i):
			buf = append(buf, ' ')
			i += len(bom) - 1
		default:
			buf = append(buf, c)
		}
	}
	return string(buf)
}

// bom is U+FEFF, the byte-order mark, in UTF-8.
const bom = "\uFEFF"

// isBOMAt reports whether U+FEFF starts at s[i].
func isBOMAt(s string, i int) bool { return strings.HasPrefix(s[i:], bom) }

// isCtrlAt reports whether a character normalize replaces (a control
// character or U+FEFF) starts at s[i].
func isCtrlAt(s string, i int) bool {
	c := s[i]
	switch {
	case c == bom[0]:
		return isBOMAt(s, i)
	case c == '\t' || c == '\n':
		return false
	case c < 0x20 || c == 0x7F:
		return true
	case c == 0xC2 && i+1 < len(s) && s[i+1] < 0xA0:
		return true
	}
	return false
}
