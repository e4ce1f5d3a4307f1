package provider

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
)

// malformedError is a shape error found after decoding; callers wrap it
// with their provider's code via Client.Malformed or errcode.
type malformedError struct{ msg string }

func (e *malformedError) Error() string { return "malformed response: " + e.msg }
func (e *malformedError) Unwrap() error { return ErrMalformed }

func errMalformedf(format string, args ...any) error {
	return &malformedError{fmt.Sprintf(format, args...)}
}

// Normalize scales v to unit L2 length in place. A zero vector is left as
// is; a vector with NaN or infinite components is an error.
func Normalize(v []float32) error {
	var sum float64
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return errMalformedf("vector has a non-finite component")
		}
		sum += f * f
	}
	if sum == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// TruncateTokens returns the longest prefix of s, cut at a rune boundary,
// whose estimated token count (chunk.TokensEstimate) is at most max.
func TruncateTokens(s string, max int) string {
	if max <= 0 || chunk.TokensEstimate(s) <= max {
		return s
	}
	lo, hi := 0, len(s) // invariant: s[:lo] fits, s[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid == lo {
			mid = (lo + hi) / 2
			for mid < hi && !utf8.RuneStart(s[mid]) {
				mid++
			}
			if mid == hi {
				break
			}
		}
		if chunk.TokensEstimate(s[:mid]) <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	return s[:lo]
}
