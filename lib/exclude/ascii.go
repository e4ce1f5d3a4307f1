package exclude

import "encoding/binary"

const hi1 = 0x8080808080808080

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
