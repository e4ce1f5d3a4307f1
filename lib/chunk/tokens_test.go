package chunk

import (
	"strings"
	"testing"
)

func TestTextHash(t *testing.T) {
	if got := TextHash(""); got != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("TextHash(\"\") = %s", got)
	}
	if TextHash("a") == TextHash("a ") {
		t.Error("different texts hash alike")
	}
}

func TestTokensEstimate(t *testing.T) {
	cases := []struct {
		in       string
		min, max int
	}{
		{"", 0, 0},
		{"   ", 1, 1},
		{"hello", 1, 1},
		// cl100k: 10 tokens.
		{"The quick brown fox jumps over the lazy dog.", 9, 11},
		// cl100k: about 11 tokens.
		{"func main() {\n\tfmt.Println(\"hello\")\n}\n", 10, 16},
		// One token per CJK character (cl100k: 9).
		{"日本語のテキストです", 8, 12},
		{"Привет, мир", 3, 6},
		{"🚀🚀🚀", 3, 6},
	}
	for _, c := range cases {
		if got := TokensEstimate(c.in); got < c.min || got > c.max {
			t.Errorf("TokensEstimate(%q) = %d, want %d..%d", c.in, got, c.min, c.max)
		}
	}
}

// On ordinary English the estimate is close to the usual chars/4 rule.
func TestTokensEstimateProseNearCharsOverFour(t *testing.T) {
	prose := strings.Repeat("Chunking splits a representation into pieces that are embedded separately, "+
		"and each piece keeps the line span it came from so that answers can cite it. ", 50)
	got, rule := TokensEstimate(prose), (len(prose)+3)/4
	if got < rule*8/10 || got > rule*13/10 {
		t.Errorf("estimate %d is far from chars/4 = %d on prose", got, rule)
	}
}

func TestTokensEstimateSubadditive(t *testing.T) {
	a, b := "some words here.", "func f() { return 1 }"
	if got := TokensEstimate(a + "\n" + b); got > TokensEstimate(a)+TokensEstimate(b)+1 {
		t.Errorf("estimate of a joined text (%d) exceeds its parts + 1", got)
	}
}
