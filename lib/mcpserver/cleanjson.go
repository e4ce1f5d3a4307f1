package mcpserver

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
)

// cleanJSON reports whether the JSON document b (compact, as json.Marshal
// writes it) can be served as it is: no string value holds anything the
// redactor masks or its replacement text (a span masked when indexing,
// which the result must count), no "rel_path" value lies outside scope,
// and there is no "redactions" key (a tool's own count). When it reports
// false, secureResult takes the general path (decode, mask, re-encode),
// so this check may be conservative but never lenient. Strings repeated in
// b are checked once.
func (s *Server) cleanJSON(b []byte, scope *corpus.Scope) bool {
	paths := len(scope.Paths()) > 0
	masking := s.redact.Enabled()
	if !paths && !masking {
		return !bytes.Contains(b, []byte(`"redactions":`))
	}
	if masking && bytes.Contains(b, s.replacementJSON) {
		return false
	}
	clean := map[string]bool{}
	var buf []byte   // the unescaped string
	relPath := false // the string being read is the value of a "rel_path" key
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end, escaped := stringEnd(b, i)
		if end < 0 {
			return false
		}
		raw := b[i+1 : end]
		isKey := end+1 < len(b) && b[end+1] == ':'
		i = end
		if isKey {
			if string(raw) == "redactions" {
				return false
			}
			relPath = string(raw) == "rel_path" && i+2 < len(b) && b[i+2] == '"'
			continue
		}
		val := raw
		if escaped {
			if val = unescape(buf[:0], raw); val == nil {
				return false
			}
			buf = val
		}
		if relPath && paths && !scope.AllowsPath(string(val)) {
			return false
		}
		relPath = false
		if !masking || clean[string(val)] {
			continue
		}
		if s.redact.Finds(val) {
			return false
		}
		clean[string(val)] = true
	}
	return true
}

// stringEnd returns the index of the quote closing the JSON string whose
// opening quote is at b[start] (-1 if there is none), and whether the
// string holds escapes.
func stringEnd(b []byte, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return -1, escaped
}

// unescape appends the value of the JSON string body raw (without quotes)
// to dst, or returns nil when raw is not a valid one.
func unescape(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i++; i >= len(raw) {
			return nil
		}
		if e, ok := simpleEscapes[raw[i]]; ok {
			dst = append(dst, e)
			continue
		}
		if raw[i] != 'u' {
			return nil
		}
		r, n := hex4(raw[i+1:])
		if n < 0 {
			return nil
		}
		i += 4
		if utf16.IsSurrogate(r) {
			r2, n2 := rune(-1), -1
			if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				r2, n2 = hex4(raw[i+3:])
			}
			if r = utf16.DecodeRune(r, r2); n2 >= 0 && r != utf8.RuneError {
				i += 6
			} else {
				r = utf8.RuneError
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
	if dst == nil {
		dst = []byte{}
	}
	return dst
}

// simpleEscapes are the bytes JSON's one-letter escapes stand for.
var simpleEscapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads four hex digits (n = -1 when b does not start with them).
func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, -1
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 32)
	if err != nil {
		return 0, -1
	}
	return rune(n), 4
}
