package pdf

import (
	"io"
	"unicode/utf16"

	lpdf "github.com/dir2mcp/dir2mcp/lib/pdf/internal/parse"
)

// maxCMapBytes bounds a ToUnicode stream read into memory.
const maxCMapBytes = 4 << 20

// cmap is a ToUnicode CMap: byte codes to text (PDF 32000 §9.10.3).
type cmap struct {
	codeLen map[int]bool // byte lengths declared by codespace ranges
	chars   map[string]string
	ranges  []bfrange
}

type bfrange struct {
	lo, hi string
	dst    []string // one base string (incremented per code) or one per code
	array  bool
}

// parseCMap reads a ToUnicode stream; nil when it has no mappings. CMaps
// are PostScript; only the codespace and bf operators matter here, so a
// small tokenizer reads them.
func parseCMap(v lpdf.Value) *cmap {
	data, _ := io.ReadAll(io.LimitReader(v.Reader(), maxCMapBytes))
	m := &cmap{codeLen: map[int]bool{}, chars: map[string]string{}}
	var stk []cmapTok
	pop := func(n int) []cmapTok {
		if n > len(stk) {
			n = len(stk)
		}
		out := stk[len(stk)-n:]
		stk = stk[:len(stk)-n]
		return out
	}
	lx := cmapLexer{data: data}
	for {
		t, ok := lx.next()
		if !ok {
			break
		}
		if t.kind != tokKeyword {
			stk = append(stk, t)
			continue
		}
		switch t.s {
		case "endcodespacerange":
			args := pop(len(stk))
			for i := 0; i+1 < len(args); i += 2 {
				if args[i].kind == tokString && len(args[i].s) > 0 && len(args[i].s) == len(args[i+1].s) {
					m.codeLen[len(args[i].s)] = true
				}
			}
		case "endbfchar":
			args := pop(len(stk))
			for i := 0; i+1 < len(args); i += 2 {
				if args[i].kind == tokString && args[i+1].kind == tokString {
					m.chars[args[i].s] = utf16BE(args[i+1].s)
				}
			}
		case "endbfrange":
			args := pop(len(stk))
			for i := 0; i+2 < len(args); i += 3 {
				lo, hi, dst := args[i], args[i+1], args[i+2]
				if lo.kind != tokString || len(lo.s) == 0 || len(lo.s) != len(hi.s) {
					continue
				}
				r := bfrange{lo: lo.s, hi: hi.s, dst: dst.list, array: dst.kind == tokArray}
				if dst.kind == tokString {
					r.dst = []string{dst.s}
				}
				m.ranges = append(m.ranges, r)
			}
		default:
			stk = stk[:0] // other operators consume their operands
		}
	}
	if len(m.chars) == 0 && len(m.ranges) == 0 {
		return nil
	}
	if len(m.codeLen) == 0 {
		for k := range m.chars {
			m.codeLen[len(k)] = true
		}
		for _, r := range m.ranges {
			m.codeLen[len(r.lo)] = true
		}
	}
	return m
}

// lookup maps one code to text.
func (m *cmap) lookup(code string) (string, bool) {
	if s, ok := m.chars[code]; ok {
		return s, true
	}
	for _, r := range m.ranges {
		if len(code) != len(r.lo) || code < r.lo || code > r.hi {
			continue
		}
		off := codeValue(code) - codeValue(r.lo)
		if r.array {
			if off < len(r.dst) {
				return utf16BE(r.dst[off]), true
			}
			return "", true
		}
		if len(r.dst) == 0 || len(r.dst[0]) == 0 {
			return "", true
		}
		// Add the offset to the destination, big-endian.
		out := []byte(r.dst[0])
		carry := off
		for i := len(out) - 1; i >= 0 && carry > 0; i-- {
			sum := int(out[i]) + carry
			out[i] = byte(sum)
			carry = sum >> 8
		}
		return utf16BE(string(out)), true
	}
	return "", false
}

func codeValue(s string) int {
	v := 0
	for i := 0; i < len(s) && i < 4; i++ {
		v = v<<8 | int(s[i])
	}
	return v
}

// utf16BE decodes a CMap destination: UTF-16BE (a single byte is taken as
// a code point).
func utf16BE(s string) string {
	if len(s) == 1 {
		return string(rune(s[0]))
	}
	u := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		u = append(u, uint16(s[i])<<8|uint16(s[i+1]))
	}
	return string(utf16.Decode(u))
}
