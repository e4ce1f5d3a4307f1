package exclude

import (
	"bytes"
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// secretCorpus lists, per default rule, samples that must hit and benign
// look-alikes that must not. Each rule is tested on its own.
var secretCorpus = []struct {
	name       string
	index      int
	hit, noHit []string
}{
	{
		name:  "aws access key id",
		index: 0,
		hit: []string{
			"aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
			`{"AccessKeyId":"AKIAJ5Q7R2D3EXAMPLE9"}`,
			"xAKIAABCDEFGHIJKLMNOPx",
		},
		noHit: []string{
			"AKIA1234",
			"akiaiosfodnn7example",
			"AKIA_IOSFODNN7EXAMP",
			"AKIAiosfodnn7example",
		},
	},
	{
		name:  "aws secret access key",
		index: 1,
		hit: []string{
			"aws_secret_access_key",
			"export AWS_SECRET=x",
			"The AWS Secret Access Key is shown once.",
			"secret_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			`"PrivateKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`,
		},
		noHit: []string{
			// A bare 40-character run is not a credential without context
			// (the spec's literal rule flags these; see SpecSecretPatterns).
			"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			"sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
			"x := TestVeryLongIdentifierWithoutAnyUnderscoresInIt(t)",
			"aws region us-east-1 holds no credentials here",
			"a secret kept by aws: the keyword is after it",
			"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKE", // 39
			"snake_case_identifiers_never_reach_forty_chars_in_one_run",
			"func (s *Server) ListenAndServe() error { return nil }",
		},
	},
	{
		name:  "jwt",
		index: 2,
		hit: []string{
			"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
			"authorization=bearer   abcdefgh.ijklmnop.qrstuvwx",
			"access_token=eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM",
			`ID_TOKEN: eyJhbGciOi.eyJzdWIiOi.SflKxwRJSM`,
			"refresh_token = abcdefgh.abcdefgh.abcdefgh",
		},
		noHit: []string{
			"Authorization: Bearer abc.def.ghi",
			"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
			"access_token=abcdefgh.abcdefgh",
			"my_token = abcdefgh.abcdefgh.abcdefgh",
			"Authorization: Basic dXNlcjpwYXNzd29yZA==",
		},
	},
	{
		name:  "generic token",
		index: 3,
		hit: []string{
			"token = ghp_abcdefghijklmnopqrstuvwxyz0123",
			"TOKEN: abcdefghij0klmnopqrst",
			"TOKEN=9f8e7d6c5b4a39281706",
			`api_token = "tok_9a8b7c6d5e4f3a2b1c0d"`,
			"token: 0123456789abcdefghij\n",
		},
		noHit: []string{
			// Code naming a token by identifier, not a literal (issue 14, 5):
			// no digit, a selector, a call.
			"RequestRefreshToken: tt.requestRefreshToken,",
			"TOKEN: abcdefghijklmnopqrst",
			"github_token=abcdefghij.klmnopqrst",
			"token = someVeryLongIdentifierName",
			"Token: oauth2.StaticTokenSource(src2)",
			"refreshToken = newRefreshToken2Value(ctx)",
			"AccessToken: cfg.Oauth2AccessTokenValue,",
			"token := tok.Next()",
			"token = 12345",
			"tokenize(input)",
			"Token types: ident, number",
			"token = short-value",
			// The spec's rule wants the value right after [:=]\s*, so a
			// quoted JSON value slips through (a known gap, pinned here).
			`"auth_token":"0123456789abcdef0123"`,
		},
	},
	{
		name:  "api key formats",
		index: 4,
		hit: []string{
			"sk_0123456789abcdefghijklmnopqrstuv",
			"key: api_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
		},
		noHit: []string{
			"sk_0123456789abcdefghijklmnopqrstu", // 31
			"SK_0123456789ABCDEFGHIJKLMNOPQRSTUV",
			"sk_live_0123456789abcdefghijklmnop",
			"api_handler_for_the_server",
		},
	},
}

func TestSecretCorpus(t *testing.T) {
	for _, rule := range secretCorpus {
		e, err := New(nil, []string{DefaultSecretPatterns[rule.index]})
		if err != nil {
			t.Fatal(err)
		}
		naive := regexp.MustCompile(DefaultSecretPatterns[rule.index])
		for _, s := range rule.hit {
			if _, ok := e.SecretMatch([]byte(s)); !ok {
				t.Errorf("%s: missed must-hit sample %q", rule.name, s)
			}
			if !naive.MatchString(s) {
				t.Errorf("%s: corpus error, regexp itself misses %q", rule.name, s)
			}
		}
		for _, s := range rule.noHit {
			if _, ok := e.SecretMatch([]byte(s)); ok {
				t.Errorf("%s: matched must-not-hit sample %q", rule.name, s)
			}
		}
	}
}

func TestSecretMatchReturnsFirstPatternIndex(t *testing.T) {
	e := Default()
	content := []byte("x := 1\nkey = \"sk_0123456789abcdefghijklmnopqrstuv\"\nid AKIAIOSFODNN7EXAMPLE\n")
	if i, ok := e.SecretMatch(content); !ok || i != 0 {
		t.Errorf("SecretMatch = %d, %v; want 0, true", i, ok)
	}
	if i, ok := e.SecretMatch([]byte("sk_0123456789abcdefghijklmnopqrstuv")); !ok || i != 4 {
		t.Errorf("SecretMatch = %d, %v; want 4, true", i, ok)
	}
	if _, ok := e.SecretMatch([]byte("package main\n\nfunc main() {}\n")); ok {
		t.Error("matched a plain Go file")
	}
}

func TestDefaultAWSRuleNeedsCredentialContext(t *testing.T) {
	e, err := New(nil, DefaultSecretPatterns)
	if err != nil {
		t.Fatal(err)
	}
	hit := []string{
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		`"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"`,
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
		"private_key: wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	}
	noHit := []string{
		"sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"x := TestVeryLongIdentifierWithoutAnyUnderscoresInIt(t)",
		"h1:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR=",        // go.sum line
		"secret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEYlonger", // not a 40-char value
	}
	for _, s := range hit {
		if i, ok := e.SecretMatch([]byte(s)); !ok || i != 1 {
			t.Errorf("default: SecretMatch(%q) = %d, %v; want 1, true", s, i, ok)
		}
	}
	for _, s := range noHit {
		if i, ok := e.SecretMatch([]byte(s)); ok {
			t.Errorf("default: SecretMatch(%q) = %d; want no match", s, i)
		}
	}
	// The first three are what the spec's broad branch flags.
	spec, err := New(nil, SpecSecretPatterns)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range noHit[:3] {
		if i, ok := spec.SecretMatch([]byte(s)); !ok || i != 1 {
			t.Errorf("spec: SecretMatch(%q) = %d, %v; want 1, true", s, i, ok)
		}
	}
}

// fragments builds adversarial inputs for the differential tests: pieces
// of every rule, case variants, the non-ASCII runes that fold to s and k,
// separators, and runs around the 40-character threshold.
var fragments = []string{
	"AKIA", "akia", "ABCDEFGHIJKLMNOP", "aws", "AWS", "_", "secret", "SECRET", "ſecret", "ſ", "K", "\u212a",
	"token", "TOKEN", "to\u212aen", "toKen", "=", ":", " ", "\t", "\n", "bearer ", "Authorization: Bearer ",
	"access_token=", "id_token:", "refresh_token = ", "abcdefgh", "ABCDEFGH.", ".", "sk_", "api_",
	"0123456789abcdef", "0123456789ABCDEF0123456789abcdef", "/+=", "é", "\xff", "\x00", "zzzzzzzzzz",
	strings.Repeat("a", 39), strings.Repeat("Z", 20), "\"", "'",
}

func randomInput(rng *rand.Rand) []byte {
	var b bytes.Buffer
	n := rng.Intn(12)
	for i := 0; i < n; i++ {
		b.WriteString(fragments[rng.Intn(len(fragments))])
	}
	return b.Bytes()
}

// TestSecretMatchAgreesWithRegexp checks that the fast strategies give the
// verdict of the plain regexp, rule by rule, on adversarial inputs.
func TestSecretMatchAgreesWithRegexp(t *testing.T) {
	patterns := append(append([]string{}, DefaultSecretPatterns...), SpecSecretPatterns[1],
		`(?i)password\s*=\s*\S{8,}`, `\bghp_[A-Za-z0-9]{36}\b`, `(?m)^secret:`, `[ſK]{3,}`, `(?i)kk+s`,
		`(?:abc|ABD)[0-9]{2}`, `x[ab]y{2}`)
	rng := rand.New(rand.NewSource(1))
	inputs := make([][]byte, 0, 20000)
	for i := 0; i < cap(inputs); i++ {
		inputs = append(inputs, randomInput(rng))
	}
	for _, rule := range secretCorpus {
		for _, s := range append(rule.hit, rule.noHit...) {
			inputs = append(inputs, []byte(s))
		}
	}
	for _, p := range patterns {
		e, err := New(nil, []string{p})
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		naive := regexp.MustCompile(p)
		for _, in := range inputs {
			_, got := e.SecretMatch(in)
			if want := naive.Match(in); got != want {
				t.Fatalf("pattern %q on %q: engine %v, regexp %v", p, in, got, want)
			}
		}
	}
}

func FuzzSecretMatch(f *testing.F) {
	for _, rule := range secretCorpus {
		for _, s := range append(rule.hit, rule.noHit...) {
			f.Add([]byte(s))
		}
	}
	f.Add([]byte("to\u212aen = abcdefghijklmnopqrstuvwxyz"))
	naive := make([]*regexp.Regexp, len(DefaultSecretPatterns))
	engines := make([]*Engine, len(DefaultSecretPatterns))
	for i, p := range DefaultSecretPatterns {
		naive[i] = regexp.MustCompile(p)
		engines[i], _ = New(nil, []string{p})
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for i := range naive {
			if _, got := engines[i].SecretMatch(in); got != naive[i].Match(in) {
				t.Fatalf("pattern %d on %q: engine %v, regexp %v", i, in, got, !got)
			}
		}
	})
}

func TestHasRun(t *testing.T) {
	set := new([256]bool)
	for c := 'a'; c <= 'z'; c++ {
		set[c] = true
	}
	for _, tt := range []struct {
		s    string
		n    int
		want bool
	}{
		{"", 1, false},
		{"a", 1, true},
		{"abc", 3, true},
		{"ab-cd", 3, false},
		{"-abc-", 3, true},
		{"ab-abc", 3, true},
		{strings.Repeat("ab-", 100) + "abcd", 4, true},
		{strings.Repeat("abc-", 100), 4, false},
	} {
		if got := hasRun([]byte(tt.s), set, tt.n); got != tt.want {
			t.Errorf("hasRun(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestEqualFoldLower(t *testing.T) {
	for _, tt := range []struct {
		b, lower string
		want     bool
	}{
		{"TOKEN", "token", true},
		{"ToKeN", "token", true},
		{"token", "token", true},
		{"tokem", "token", false},
		{"[oken", "{oken", false}, // '[' is not the upper case of '{'
		{"_TOK", "_tok", true},
	} {
		if got := equalFoldLower([]byte(tt.b), []byte(tt.lower)); got != tt.want {
			t.Errorf("equalFoldLower(%q, %q) = %v", tt.b, tt.lower, got)
		}
	}
}

func TestHasHighBit(t *testing.T) {
	for n := 0; n < 80; n++ {
		b := bytes.Repeat([]byte("a"), n)
		if hasHighBit(b) {
			t.Fatalf("hasHighBit(ascii len %d) = true", n)
		}
		for i := 0; i < n; i++ {
			c := append([]byte{}, b...)
			c[i] = 0x80
			if !hasHighBit(c) {
				t.Fatalf("hasHighBit missed byte at %d of %d", i, n)
			}
		}
	}
}

// TestDefaultsUseFastStrategies guards the speed of the defaults: none of
// their alternatives may fall back to running a regexp over whole files.
func TestDefaultsUseFastStrategies(t *testing.T) {
	want := [][]string{
		{"prefix"},
		{"prefix", "prefix"},
		{"prefix"},
		{"prefix"},
		{"prefix", "prefix"},
	}
	e := Default()
	for i, r := range e.secrets.get() {
		var got []string
		for _, a := range r.alts {
			switch {
			case a.runSet != nil:
				got = append(got, "run")
			case a.anchored != nil:
				got = append(got, "prefix")
			default:
				got = append(got, "regexp")
			}
		}
		if strings.Join(got, ",") != strings.Join(want[i], ",") {
			t.Errorf("pattern %d strategies = %v, want %v", i, got, want[i])
		}
	}
	if lits := e.secrets.get()[2].alts[0].lits; len(lits) != 4 {
		t.Errorf("JWT prefix literals = %d, want 4 (authorization, access_token, id_token, refresh_token)", len(lits))
	}
}
