package chunk

import (
	"strings"
	"testing"
)

var fuzzSeeds = []string{
	"",
	"\n\n\n",
	"package main\n\nfunc main() {\n\tprintln(1)\n}\n",
	"# Title\n\npara one.\n\n## Two\n\n- a\n- b\n```\n# not a heading\n```\n",
	strings.Repeat("x", 300),
	strings.Repeat("word ", 100) + "\n" + strings.Repeat("日本", 100),
	"a\r\nb\rc\x00d\n\t\n}\n",
	"Title\n=====\n\ntext\n---\n",
}

// fuzzOptions derives small options so the fuzzer hits splits and overlaps.
func fuzzOptions(a, b, c uint8) (CodeOptions, TextOptions) {
	return CodeOptions{MaxLines: int(a%40) + 1, OverlapLines: int(b%20) - 2, MaxChars: int(c)*4 + 1},
		TextOptions{MaxChars: int(c)*4 + 1, OverlapChars: int(b) - 20, MinChars: int(a) - 20}
}

func FuzzCode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, uint8(10), uint8(5), uint8(30))
		f.Add(s, uint8(0), uint8(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, a, b, c uint8) {
		opt, _ := fuzzOptions(a, b, c)
		pieces := Code(text, opt)
		checkPieces(t, text, pieces, opt.normalized().MaxChars)
		if again := Code(text, opt); samePrefix(pieces, again) != len(pieces) || len(again) != len(pieces) {
			t.Fatal("not deterministic")
		}
	})
}

func FuzzText(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, uint8(10), uint8(5), uint8(30))
		f.Add(s, uint8(0), uint8(0), uint8(0))
	}
	f.Fuzz(func(t *testing.T, text string, a, b, c uint8) {
		_, opt := fuzzOptions(a, b, c)
		pieces := Text(text, opt)
		n := opt.normalized()
		checkPieces(t, text, pieces, n.MaxChars+n.MinChars)
		TokensEstimate(text)
	})
}
