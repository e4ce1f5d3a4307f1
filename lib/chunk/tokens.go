package chunk

import (
	"unicode"
	"unicode/utf8"
)

// TokensEstimate approximates how many tokens a byte-pair-encoding
// tokenizer of the GPT/Mistral family makes of s, for budgeting context,
// without a vocabulary. It counts:
//
//   - a run of letters, digits and '_' (any script): one token per 6 bytes
//     begun, so most English words cost 1 and long identifiers 2–3;
//   - a run of ASCII punctuation: one token per 2 characters begun;
//   - a Han, Hiragana, Katakana or Hangul character: one token each;
//   - another non-ASCII symbol (emoji, arrows, ...): one token each;
//   - a line break, together with the indentation after it: one token;
//   - other whitespace: free when a single space, else one token per run.
//
// For English prose this lands near the usual four characters per token;
// for code, which has more short symbols, it counts more, as real
// tokenizers do. It is 0 only for text without any of the above.
func TokensEstimate(s string) int {
	tokens := 0
	word, punct := 0, 0 // lengths of the runs in progress
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			j := i + 1
			switch class := asciiClass[c]; class {
			case clsWord:
				for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == clsWord {
					j++
				}
				tokens += (punct + 1) / 2
				word, punct = word+j-i, 0
			case clsPunct:
				for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] == clsPunct {
					j++
				}
				tokens += (word + 5) / 6
				word, punct = 0, punct+j-i
			default:
				newline := class == clsNewline
				for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] >= clsSpace {
					newline = newline || s[j] == '\n'
					j++
				}
				tokens += (word+5)/6 + (punct+1)/2
				word, punct = 0, 0
				if newline || j-i > 1 {
					tokens++
				}
			}
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case unicode.IsLetter(r) && !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul),
			unicode.IsDigit(r), unicode.Is(unicode.Mn, r):
			tokens += (punct + 1) / 2
			word, punct = word+size, 0
		case unicode.IsSpace(r):
			tokens += (word+5)/6 + (punct+1)/2
			word, punct = 0, 0
		default: // CJK characters, symbols, emoji: one token each
			tokens += (word+5)/6 + (punct+1)/2 + 1
			word, punct = 0, 0
		}
	}
	return tokens + (word+5)/6 + (punct+1)/2
}

const (
	clsPunct = iota
	clsWord
	clsSpace // clsSpace and above are whitespace
	clsNewline
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			t[c] = clsWord
		case c == '\n':
			t[c] = clsNewline
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c < 0x20:
			t[c] = clsSpace
		default:
			t[c] = clsPunct
		}
	}
	return t
}()
