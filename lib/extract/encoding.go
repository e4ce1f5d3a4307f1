package extract

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// sniffBytes is how much of the content the BOM-less UTF-16 check samples.
const sniffBytes = 4096

// decode converts content to UTF-8 and names the encoding it found. The
// result may still contain a leading U+FEFF and any line endings; normalize
// handles those. It never fails: undecodable input degrades to U+FFFD.
func decode(b []byte, isHTML bool) (string, string) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return toValidUTF8(b[3:]), EncUTF8
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return decodeUTF16(b[2:], false), EncUTF16LE
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return decodeUTF16(b[2:], true), EncUTF16BE
	}
	if bigEndian, ok := sniffUTF16(b); ok {
		if bigEndian {
			return decodeUTF16(b, true), EncUTF16BE
		}
		return decodeUTF16(b, false), EncUTF16LE
	}
	if utf8.Valid(b) {
		return string(b), EncUTF8
	}
	if isHTML {
		if s, name, ok := decodeDeclared(b); ok {
			return s, name
		}
	}
	if mostlyUTF8(b) {
		return toValidUTF8(b), EncUTF8
	}
	return decodeWindows1252(b), EncWindows1252
}

func toValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// sniffUTF16 detects BOM-less UTF-16 from its NUL pattern: text that is
// mostly ASCII has a zero high byte in nearly every code unit, so zeros
// crowd one byte position (odd for little-endian, even for big-endian)
// and are rare in the other.
func sniffUTF16(b []byte) (bigEndian, ok bool) {
	n := min(len(b), sniffBytes) &^ 1
	pairs := n / 2
	if pairs < 2 {
		return false, false
	}
	zeroEven, zeroOdd := 0, 0
	for i := 0; i < n; i += 2 {
		if b[i] == 0 {
			zeroEven++
		}
		if b[i+1] == 0 {
			zeroOdd++
		}
	}
	switch {
	case zeroOdd*10 >= pairs*4 && zeroEven*10 <= pairs:
		return false, true
	case zeroEven*10 >= pairs*4 && zeroOdd*10 <= pairs:
		return true, true
	}
	return false, false
}

// decodeUTF16 decodes UTF-16 code units; unpaired surrogates and a trailing
// odd byte become U+FFFD.
func decodeUTF16(b []byte, bigEndian bool) string {
	out := make([]byte, 0, len(b)+len(b)/2)
	unit := func(i int) rune {
		if bigEndian {
			return rune(b[i])<<8 | rune(b[i+1])
		}
		return rune(b[i+1])<<8 | rune(b[i])
	}
	i := 0
	for ; i+1 < len(b); i += 2 {
		r := unit(i)
		if utf16.IsSurrogate(r) {
			if r < 0xDC00 && i+3 < len(b) {
				if r2 := unit(i + 2); r2 >= 0xDC00 && r2 <= 0xDFFF {
					out = utf8.AppendRune(out, utf16.DecodeRune(r, r2))
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
	}
	if i < len(b) {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return string(out)
}

// mostlyUTF8 reports whether invalid UTF-8 looks like a damaged UTF-8 file
// (at least as many valid multi-byte sequences as invalid bytes) rather than
// a single-byte encoding, whose high bytes rarely form valid sequences.
func mostlyUTF8(b []byte) bool {
	multi, invalid := 0, 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		} else {
			multi++
		}
		i += size
	}
	return multi > 0 && invalid <= multi
}

// cp1252 maps bytes 0x80–0x9F of Windows-1252; the five bytes it leaves
// undefined map to the C1 control of the same value (as WHATWG does).
var cp1252 = [32]rune{
	0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
	0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
	0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
	0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
}

// decodeWindows1252 decodes b as Windows-1252 (Latin-1 outside 0x80–0x9F).
func decodeWindows1252(b []byte) string {
	out := make([]byte, 0, len(b)+len(b)/4)
	for _, c := range b {
		switch {
		case c < 0x80:
			out = append(out, c)
		case c < 0xA0:
			out = utf8.AppendRune(out, cp1252[c-0x80])
		default:
			out = utf8.AppendRune(out, rune(c))
		}
	}
	return string(out)
}

// decodeDeclared decodes HTML by the charset its <meta> declares, when it
// declares one other than UTF-8 and Windows-1252 (which decode handles).
func decodeDeclared(b []byte) (string, string, bool) {
	enc, name, _ := charset.DetermineEncoding(b, "text/html")
	if enc == nil || name == "utf-8" || name == "windows-1252" {
		return "", "", false
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return "", "", false
	}
	return toValidUTF8(out), name, true
}
