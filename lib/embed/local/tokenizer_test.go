package local

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func defaultTokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	_, tok, err := DefaultTable()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Reference ids recorded from @energetic-ai/embeddings 0.2.0 (tokenize.js),
// so the tokenizer is checked even where node is not installed.
func TestEncodeKnown(t *testing.T) {
	tok := defaultTokenizer(t)
	cases := []struct {
		in   string
		want []int
	}{
		{"Hello, world! func (tr *Reader) Next() (*Header, error)",
			[]int{341, 4125, 8, 311, 78, 725, 131, 44, 17, 93, 1098, 1972, 607, 46, 52, 5035, 2964, 44, 896, 1330, 607, 46, 8, 3506, 52}},
		{"", []int{}},
		// Two spaces are two "▁"; tab and newline are unknown (id 0), and a
		// run of unknown characters is one id.
		{"  a  b\tc\n", []int{30, 30, 11, 30, 464, 0, 131, 0}},
		// CJK and emoji are unknown; "”5" is listed twice in the vocabulary
		// and the later id wins.
		{"日本語 😀 ”5", []int{30, 0, 30, 0, 30, 4464}},
	}
	for _, c := range cases {
		got := tok.Encode(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestEncodePiecesRoundTrip(t *testing.T) {
	tab, tok, err := DefaultTable()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, id := range tok.Encode("The quick brown fox jumps over the lazy dog.") {
		b.WriteString(tab.Pieces[id])
	}
	if got, want := b.String(), "▁The▁quick▁brown▁fox▁jumps▁over▁the▁lazy▁dog."; got != want {
		t.Errorf("pieces joined = %q, want %q", got, want)
	}
}

// tokenizerCorpus returns n deterministic test strings: code and prose lines
// from the Go source tree and pairs.json, NFKC-sensitive characters, CJK,
// emoji, combining marks, white-space runs and random mixtures.
func tokenizerCorpus(t testing.TB, n int) []string {
	t.Helper()
	out := []string{"", " ", "  ", "\t", "\n\n", " a", "a ", "a  b", "▁", "▁▁x", "<s></s>",
		"ﬁle ﬂow", "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３", "x²+y³", "a\u00a0b", "日本\u3000語", "e\u0301 é", "Å Å",
		"😀😀😀", "👩‍💻 emoji zwj", "🇫🇷 flag", "한국어 텍스트", "中文文本，标点。", "Ελληνικά", "Русский текст",
		"العربية", "हिन्दी", "“quotes” ‘single’ — dash … ellipsis", "½ ¼ ™ ℃ №", ":00 :00:00", "”5”5",
		"CamelCaseIdentifier snake_case_name SCREAMING_CASE", "0x1F 3.14159 1e-9", "\x00\x01 control"}
	var d struct {
		Paraphrase [][2]string
		Code       [][3]string
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "embed", "pairs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Paraphrase {
		out = append(out, p[0], p[1])
	}
	for _, c := range d.Code {
		out = append(out, c[0], c[2], CodeText(c[1], c[2]))
	}
	for _, f := range []string{"strings/strings.go", "archive/tar/reader.go", "unicode/utf8/utf8.go", "net/http/doc.go"} {
		b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			if i%3 == 0 && len(out) < n/2 {
				out = append(out, line)
			}
		}
	}
	pool := []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?'\"()[]{}<>-_=+*/\\|@#$%^&~`" +
		"    \t\n▁éèêëçñöüßÆæøå日本語中文한국😀🎉👍🏽ﬁﬂＡ１²½ ‘’“”…—–«»¿¡™©®°±×÷µ¶§\u0301\u0308\u200d\ufeff\ufffd")
	words := strings.Fields("the of and to in is you that it for error return func reader writer buffer http server")
	r := rand.New(rand.NewPCG(1, 2))
	for len(out) < n {
		var b strings.Builder
		switch r.IntN(3) {
		case 0:
			for range r.IntN(40) {
				b.WriteRune(pool[r.IntN(len(pool))])
			}
		case 1:
			for range 1 + r.IntN(12) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteString([]string{" ", "  ", "", "_", ".", "\n", "😀"}[r.IntN(7)])
			}
		default:
			for range 1 + r.IntN(8) {
				b.WriteString(words[r.IntN(len(words))])
				b.WriteRune(pool[r.IntN(len(pool))])
			}
		}
		out = append(out, b.String())
	}
	for i, s := range out {
		if !utf8.ValidString(s) {
			t.Fatalf("corpus string %d is not valid UTF-8", i)
		}
	}
	return out
}

// TestEncodeMatchesReference checks the Go tokenizer against the JS one of
// @energetic-ai/embeddings on 2,000 strings.
func TestEncodeMatchesReference(t *testing.T) {
	tok := defaultTokenizer(t)
	corpus := tokenizerCorpus(t, 2000)
	want := jsTokenize(t, corpus)
	bad := 0
	for i, s := range corpus {
		got := tok.Encode(s)
		if !slices.Equal(got, want[i]) {
			bad++
			if bad <= 10 {
				t.Errorf("Encode(%q)\n got %v\nwant %v", s, got, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d strings differ from the reference tokenizer", bad, len(corpus))
	}
}

func TestNewTokenizerRejectsMismatch(t *testing.T) {
	if _, err := NewTokenizer([]string{"a"}, nil); err == nil {
		t.Fatal("NewTokenizer with 1 piece and 0 scores: no error")
	}
}
