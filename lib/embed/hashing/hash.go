package hashing

import (
	"unicode"
	"unicode/utf8"
)

// FNV-1a, 64-bit.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// wordKey hashes token s case-folded as strings.ToLower folds it, without
// allocating. Word keys have the top bit clear; trigram keys have it set.
func wordKey(s string) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			h = (h ^ uint64(c)) * fnvPrime
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		var b [utf8.UTFMax]byte
		n := utf8.EncodeRune(b[:], unicode.ToLower(r))
		for _, c := range b[:n] {
			h = (h ^ uint64(c)) * fnvPrime
		}
	}
	return h &^ (1 << 63)
}

// trigramKey packs three case-folded runes (0 marks a word boundary).
func trigramKey(a, b, c rune) uint64 {
	return 1<<63 | uint64(a)<<42 | uint64(b)<<21 | uint64(c)
}

// mix is the SplitMix64 finalizer: a bijection that spreads key bits, so
// mixed keys collide exactly when keys do.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// bucket maps a mixed key to a dimension below dim and a sign.
func bucket(m uint64, dim int) (int, bool) {
	return int((m >> 32) * uint64(dim) >> 32), m&1 == 1
}
