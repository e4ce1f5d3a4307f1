package exclude

import "encoding/binary"

const (
	lo7   = 0x7f7f7f7f7f7f7f7f
	hi1   = 0x8080808080808080
	ones8 = 0x0101010101010101
)

// lowerASCII writes src to dst with A-Z mapped to a-z, eight bytes at a
// time; bytes >= 0x80 are copied unchanged. len(dst) must be >= len(src).
func lowerASCII(dst, src []byte) {
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		h := x & lo7
		ge := h + (0x80-'A')*ones8   // high bit set where the byte >= 'A'
		gt := h + (0x80-'Z'-1)*ones8 // high bit set where the byte > 'Z'
		upper := ge &^ gt &^ x & hi1
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}

// hasHighBit reports whether b holds a byte >= 0x80.
func hasHighBit(b []byte) bool {
	i := 0
	var acc uint64
	for ; i+32 <= len(b); i += 32 {
		acc |= binary.LittleEndian.Uint64(b[i:]) | binary.LittleEndian.Uint64(b[i+8:]) |
			binary.LittleEndian.Uint64(b[i+16:]) | binary.LittleEndian.Uint64(b[i+24:])
		if acc&hi1 != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= 0x80 {
			return true
		}
	}
	return acc&hi1 != 0
}
