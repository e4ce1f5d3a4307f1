package exclude

import (
	"fmt"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// credentialSamples are credentials of every default kind as they appear
// in files: the text around them, the secret that must vanish, and text
// that must stay. Tokens are assembled from pieces so this file does not
// itself look like a leaked credential to scanners.
func credentialSamples() []struct{ kind, text, secret, keep string } {
	rep := strings.Repeat
	jwt := "eyJhbGciOiJIUzI1NiJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	pem := func(kind string) string {
		return "-----BEGIN " + kind + "-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END " + kind + "-----"
	}
	return []struct{ kind, text, secret, keep string }{
		{"aws_access_key_id", "aws_access_key_id = " + "AKIA" + "Q3EGVP7NXW2ZK4YT\n", "AKIA" + "Q3EGVP7NXW2ZK4YT", "aws_access_key_id = "},
		{"aws_secret_access_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3Xk2Lm9T\n", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3Xk2Lm9T", "aws_secret_access_key = "},
		{"github_token", "export GITHUB_TOKEN=" + "gh" + "p_" + rep("aB3d", 9) + "\n", "p_" + rep("aB3d", 9), "export GITHUB_TOKEN="},
		{"github_token", "token: " + "github_pat_" + "11ABCDEFG0" + rep("x9Y", 20), "11ABCDEFG0" + rep("x9Y", 20), "token: "},
		{"gitlab_token", "CI uses " + "gl" + "pat-" + "xZ9kQ2mN4pL7rT1vB6cD" + " for pushes", "xZ9kQ2mN4pL7rT1vB6cD", " for pushes"},
		{"slack_token", "bot: " + "xo" + "xb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "bot: "},
		{"slack_webhook", "POST to https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/" + "q8Xz3LmN9pR2sT5vW7yA1bC4", "q8Xz3LmN9pR2sT5vW7yA1bC4", "POST to "},
		{"stripe_secret_key", "STRIPE_KEY=\"" + "sk" + "_live_" + "51HqLyjWDarjtT1zdp7dcXYZabc" + "\"", "51HqLyjWDarjtT1zdp7dcXYZabc", "STRIPE_KEY="},
		{"twilio_api_key", "twilio key " + "SK" + "0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef", "twilio key "},
		{"twilio_auth_token", "TWILIO_AUTH_TOKEN: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "TWILIO_AUTH_TOKEN: "},
		{"sendgrid_api_key", "sendgrid: " + "SG" + ".ngeVfQFYQlKU0ufo8x5d1A" + "." + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr", "sendgrid: "},
		{"google_api_key", "maps key " + "AI" + "za" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "maps key "},
		{"google_oauth_client_secret", "client_secret_value " + "GOCSPX" + "-1a2B3c4D5e6F7g8H9i0JkLmNoPq", "1a2B3c4D5e6F7g8H9i0JkLmNoPq", "client_secret_value "},
		{"jwt", "Here is a session: " + jwt + " (expired)", jwt, " (expired)"},
		{"private_key", "# Deploy key\n\n" + pem("RSA PRIVATE KEY") + "\nthanks", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "# Deploy key"},
		{"private_key", pem("EC PRIVATE KEY"), "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK", ""},
		{"private_key", pem("OPENSSH PRIVATE KEY"), "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK", ""},
		{"private_key", pem("PGP PRIVATE KEY BLOCK"), "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK", ""},
		{"private_key", pem("PRIVATE KEY"), "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", ""},
		{"private_key", "cut off:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n", "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", "cut off:"},
		{"private_key", `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", `{"private_key": "`},
		{"putty_private_key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAIJ\nPrivate-Lines: 1\nAAAAIFq0ZxNcJm3yZ8Wk2v\nPrivate-MAC: 5d1ee3b8a2f7c1d0e9\n", "AAAAIFq0ZxNcJm3yZ8Wk2v", ""},
		{"url_credentials", "DATABASE_URL=postgres://app:S3cr3t-Pa55@db.internal:5432/app", "S3cr3t-Pa55", "postgres://app:"},
		{"url_credentials", "git clone https://deploy:glb7x9q2w4e6r8t0@git.example.com/repo.git", "glb7x9q2w4e6r8t0", "@git.example.com/repo.git"},
		{"password_assignment", "curl 'https://api.example.com/login?user=bob&password=hunter2xyz&x=1'", "hunter2xyz", "&x=1"},
		{"password_assignment", "Server=db;Database=app;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor", "User Id=sa;"},
		{"password_assignment", "DB_PASSWORD=correcthorsebattery\n", "correcthorsebattery", "DB_PASSWORD="},
		{"password_field", `{"user": "bob", "password": "p4ssw0rd!"}`, "p4ssw0rd!", `"user": "bob"`},
		{"password_yaml", "db:\n  host: localhost\n  password: Zq8vN2xLw4\n", "Zq8vN2xLw4", "host: localhost"},
		{"azure_connection_string", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + rep("Ab3+", 21) + "==;EndpointSuffix=core.windows.net", rep("Ab3+", 21), "AccountName=acme"},
		{"npm_token", "//registry.npmjs.org/:_authToken=" + "npm" + "_" + rep("a1B2c3", 6), rep("a1B2c3", 6), "registry.npmjs.org"},
		{"npmrc_auth", "_auth = dXNlcjpwYXNzd29yZA==\n", "dXNlcjpwYXNzd29yZA==", "_auth = "},
		{"sk_api_key", "OPENAI_API_KEY=" + "sk" + "-proj-" + "T3BlbkFJ4xYz9QwErTyUiOpAsDfGhJkL", "T3BlbkFJ4xYz9QwErTyUiOpAsDfGhJkL", "OPENAI_API_KEY="},
		{"sk_api_key", "anthropic: " + "sk" + "-ant-" + "api03-Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0", "api03-Zx8Cv7Bn6Mm5Ll4Kk3Jj2Hh1Gg0", "anthropic: "},
		{"mistral_api_key", "MISTRAL_API_KEY=aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY", "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY", "MISTRAL_API_KEY="},
		{"netrc_password", "machine api.example.com\n  login bob\n  password n3trcS3cret\n", "n3trcS3cret", "login bob"},
		{"authorization_header", "curl -H 'Authorization: Basic dXNlcjpodW50ZXIy' https://x", "dXNlcjpodW50ZXIy", "https://x"},
		{"huggingface_token", "HF_TOKEN=" + "hf" + "_" + rep("AbCdEfGhIj", 3) + "KlMn", rep("AbCdEfGhIj", 3) + "KlMn", "HF_TOKEN="},
		{"pypi_token", "password = " + "pypi" + "-AgEIcHlwaS5vcmc" + rep("Q1w2E3r4T5", 6), "AgEIcHlwaS5vcmc" + rep("Q1w2E3r4T5", 6), ""},
		{"telegram_bot_token", "bot " + "123456789" + ":AA" + "Fq2w3e4r5t6y7u8i9o0pAsDfGhJkLzXcV", "Fq2w3e4r5t6y7u8i9o0pAsDfGhJkLzXcV", "bot "},
		{"digitalocean_token", "do " + "dop" + "_v1_" + rep("0123456789abcdef", 4), rep("0123456789abcdef", 4), "do "},
		{"shopify_token", "shop " + "shp" + "at_" + rep("a1b2c3d4", 4), rep("a1b2c3d4", 4), "shop "},
		{"password_yaml", "cache:\n  password: correct horse battery staple\n", "correct horse battery staple", "cache:"},
		{"password_yaml", "redis:\n  password: Hx7\n", "Hx7", "redis:"},
		{"env_secret", "SECRET_KEY_BASE=8f7e6d5c4b3a2918a1b2c3d4\nDB_PASS=LocalDbPa55word\n", "LocalDbPa55word", "DB_PASS="},
		{"env_secret_quoted", "JWT_SECRET=\"pr0dJwtS3cretValue42\"\n", "pr0dJwtS3cretValue42", "JWT_SECRET="},
		{"env_secret_quoted", "define( 'DB_PASSWORD', 'WpDbPassw0rd!' );", "WpDbPassw0rd!", "define( 'DB_PASSWORD'"},
		{"env_secret_quoted", "SECRET_KEY = 'django-insecure-4f#k2@p9!x'\n", "django-insecure-4f#k2@p9!x", "SECRET_KEY = '"},
		{"quoted_token", "token = \"tok_9a8b7c6d5e4f3a2b\"\n", "tok_9a8b7c6d5e4f3a2b", "token = "},
		{"quoted_token", `{"auths": {"r.example": {"auth": "ZG9ja2VyOmRvY2tlclBhc3N3MHJk"}}}`, "ZG9ja2VyOmRvY2tlclBhc3N3MHJk", `"auths"`},
		{"kubeconfig_key", "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==\n", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==", "client-key-data: "},
		{"password_hash", "admin:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\n", "HqJZimcKQFAMYayBlzkrA/", "admin:"},
		{"password_hash", "bob:$2y$10$" + rep("aB3dE5fG7h", 5) + "xyz:1000\n", rep("aB3dE5fG7h", 5), "bob:"},
		{"dir2mcp_token", "Bearer token for CI: " + "d2m" + "_" + rep("0f1e2d3c", 8), rep("0f1e2d3c", 8), "for CI"},
	}
}

func defaultRedactor(t testing.TB) *Redactor {
	t.Helper()
	r, err := NewRedactor("security.redact.patterns", DefaultRedactPatterns, DefaultReplacement)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRedactCredentialKinds(t *testing.T) {
	r := defaultRedactor(t)
	kinds := map[string]bool{}
	for _, s := range credentialSamples() {
		kinds[s.kind] = true
		out, n := r.Mask(s.text)
		if n == 0 || strings.Contains(out, s.secret) {
			t.Errorf("%s: %q → %q (%d masked): secret still there", s.kind, s.text, out, n)
			continue
		}
		if s.keep != "" && !strings.Contains(out, s.keep) {
			t.Errorf("%s: %q → %q: lost the surrounding %q", s.kind, s.text, out, s.keep)
		}
		if !strings.Contains(out, DefaultReplacement) || strings.Count(out, "\n") != strings.Count(s.text, "\n") {
			t.Errorf("%s: %q → %q: want the replacement and the same line count", s.kind, s.text, out)
		}
		if again, _ := r.Mask(out); again != out {
			t.Errorf("%s: masking is not stable: %q → %q", s.kind, out, again)
		}
	}
	for _, k := range CredentialKinds {
		if !kinds[k.Name] {
			t.Errorf("kind %s has no sample", k.Name)
		}
	}
	if len(kinds) < 20 {
		t.Errorf("only %d credential kinds covered, want 20+", len(kinds))
	}
}

func TestRedactLeavesOrdinaryTextAlone(t *testing.T) {
	r := defaultRedactor(t)
	for _, s := range []string{
		"func (s *Server) ListenAndServe() error { return nil }",
		"password := r.FormValue(\"password\")",
		"if password == \"\" { return errMissing }",
		"password = getPassword()",
		"secret: ${DB_SECRET}",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer <token>",
		"curl https://example.com:8443/path",
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"The private key is kept in a hardware module; BEGIN and END lines are shown below.",
		"token := tok.Next()",
		"password: str",
		"    password: str = \"\"",
		"RequestRefreshToken: tt.requestRefreshToken,",
		"Password: cfg.Password,",
		"MAX_TOKEN_LENGTH = 4096",
		"SECRET_KEY = os.environ[\"SECRET_KEY\"]",
		"SECRET_KEY = get_random_secret_key()",
		"DB_PASSWORD=${DB_PASSWORD}",
		"TOKEN_TYPE = \"bearer\"",
		"token = next(tokens)",
		"TOKEN_ALL_ACCESS = STANDARD_RIGHTS_REQUIRED |",
		"PPPIOCSPASS                      = 0x40087447",
		"\"CurveTest-Client-MLKEM-TLS13\": \"PASS\",\n\t\t\"ClientAuth-Enforced\": \"PASS\",",
		"prevstate *TOKEN_PRIVILEGES, returnlen *uint32",
		"cmd.Env = append(os.Environ(), \"PWD=\"+cmd.Dir)",
		"api_key: str",
		"see https://github.com/golang/go/issues/12345 for sk-learn",
		"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
	} {
		if out, n := r.Mask(s); n != 0 || out != s {
			t.Errorf("masked ordinary text %q → %q", s, out)
		}
	}
}

func TestRedactKeepsLines(t *testing.T) {
	r := defaultRedactor(t)
	in := "line 1\n-----BEGIN RSA PRIVATE KEY-----\nAAAA\nBBBB\n-----END RSA PRIVATE KEY-----\nline 6 password=hunter2abc\n"
	out, n := r.Mask(in)
	want := "line 1\n[REDACTED]\n\n\n\nline 6 password=[REDACTED]\n"
	if out != want || n != 2 {
		t.Errorf("Mask = %q (%d), want %q (2)", out, n, want)
	}
}

func TestRedactBytesKeepsLength(t *testing.T) {
	r := defaultRedactor(t)
	in := []byte("\x00\x01PK key=" + "AKIA" + "Q3EGVP7NXW2ZK4YT\n\xff")
	out, n := r.MaskBytes(in)
	if n != 1 || len(out) != len(in) || strings.Contains(string(out), "Q3EGVP7NXW2ZK4YT") || !strings.Contains(string(out), "key="+strings.Repeat("*", 20)+"\n") {
		t.Errorf("MaskBytes = %q (%d)", out, n)
	}
	if in[9] != 'A' {
		t.Error("MaskBytes changed its input")
	}
	plain := []byte("nothing here")
	if out, n := r.MaskBytes(plain); n != 0 || &out[0] != &plain[0] {
		t.Error("MaskBytes copied content with nothing to mask")
	}
}

// Two ranges cut out of a masked window, one on each side of a key's
// middle, together show none of it: the key is recognised in the window,
// not in either half.
func TestMaskWindowMasksAKeyARangeCuts(t *testing.T) {
	r := defaultRedactor(t)
	key := "AKIA" + "Q3EGVP7NXW2ZK4YT"
	data := []byte("prefix text; aws key=" + key + " and then some more text")
	mid := strings.Index(string(data), key) + len(key)/2
	left, nl := r.MaskWindow(data, 0, mid)
	right, nr := r.MaskWindow(data, mid, len(data))
	joined := string(left) + string(right)
	if nl != 1 || nr != 1 || len(joined) != len(data) || strings.Contains(joined, key[:4]) || strings.Contains(joined, key[len(key)-6:]) {
		t.Errorf("halves %q (%d) + %q (%d)", left, nl, right, nr)
	}
	if whole, _ := r.MaskBytes(data); string(whole) != joined {
		t.Errorf("halves %q differ from the whole masked %q", joined, whole)
	}
	if part, n := r.MaskWindow(data, 0, 6); string(part) != "prefix" || n != 0 {
		t.Errorf("a range away from the key: %q %d", part, n)
	}
}

func TestRedactOverlappingMatchesMergeIntoOne(t *testing.T) {
	r, err := NewRedactor("p", []string{`abc`, `bcd`, `x(?P<secret>yz)`}, "#")
	if err != nil {
		t.Fatal(err)
	}
	if out, n := r.Mask("abcd xyz abc"); out != "# x# #" || n != 3 {
		t.Errorf("Mask = %q %d", out, n)
	}
	if r.Count("# x# #") != 3 {
		t.Error("Count")
	}
}

func TestNewRedactorErrors(t *testing.T) {
	if _, err := NewRedactor("security.redact.patterns", []string{"ok", "("}, "x"); errcode.As(err).Field != "security.redact.patterns[1]" {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := NewRedactor("p", []string{"a*"}, "x"); err == nil {
		t.Error("a pattern matching the empty string must be refused")
	}
	if _, err := NewRedactor("p", nil, ""); err == nil {
		t.Error("an empty replacement must be refused")
	}
	var nilR *Redactor
	if out, n := nilR.Mask("AKIA" + "Q3EGVP7NXW2ZK4YT"); n != 0 || nilR.Enabled() || out == "" {
		t.Error("a nil Redactor masks nothing")
	}
}

func TestRedactFingerprint(t *testing.T) {
	a := defaultRedactor(t)
	b, _ := NewRedactor("p", DefaultRedactPatterns, "***")
	c, _ := NewRedactor("p", DefaultRedactPatterns[1:], DefaultReplacement)
	if a.Fingerprint() == b.Fingerprint() || a.Fingerprint() == c.Fingerprint() || a.Fingerprint() != defaultRedactor(t).Fingerprint() {
		t.Error("fingerprint must follow the patterns and the replacement")
	}
	if KindOf(DefaultRedactPatterns[3]) != CredentialKinds[3].Name || KindOf("mine") != "" {
		t.Error("KindOf")
	}
}

// TestRedactCoversEveryRegexpMatch checks the literal-anchored search
// against plain regexps: on random mixtures of credential fragments, every
// span a pattern's regexp finds (its secret group, else the match) lies
// inside a masked span.
func TestRedactCoversEveryRegexpMatch(t *testing.T) {
	frags := []string{"AKIA", "ASIA", "Q3EGVP7NXW2ZK4YT", "x", "_", " ", "\n", "=", ":", "\"", "'", "@", "://", "u",
		"password", "PassWord", "pwd", "api_key", "apikey", "token", "secret", "ghp_", "gh", "p_", strings.Repeat("aB3d", 9),
		"sk-", "sk_live_", "xoxb-", "eyJ", "eyJhbGciOi.", "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
		"machine", "login", "Authorization: Bearer ", "SK", "0123456789abcdef", "hf_", "d2m_", ":AA", "mistral", "ſ", "\u212a",
		"AccountKey=", "_authToken=", "hunter2xyz", "Zq8vN2xLw4", strings.Repeat("0f", 20), "é"}
	rng := rand.New(rand.NewSource(7))
	for _, k := range CredentialKinds {
		r, err := NewRedactor("p", []string{k.Pattern}, "#")
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(k.Pattern)
		g := re.SubexpIndex(SecretGroup)
		for i := 0; i < 3000; i++ {
			var b strings.Builder
			for n := rng.Intn(14); n > 0; n-- {
				b.WriteString(frags[rng.Intn(len(frags))])
			}
			in := []byte(b.String())
			spans := r.spans(in)
			for _, m := range re.FindAllSubmatchIndex(in, -1) {
				lo, hi := m[0], m[1]
				if g > 0 && m[2*g] >= 0 {
					lo, hi = m[2*g], m[2*g+1]
				}
				if hi == lo {
					continue
				}
				covered := false
				for _, s := range spans {
					covered = covered || s[0] <= lo && hi <= s[1]
				}
				if !covered {
					t.Fatalf("%s: regexp match %q in %q not masked (spans %v)", k.Name, in[lo:hi], in, spans)
				}
			}
		}
	}
}

func TestRedactJSONKeepsStructure(t *testing.T) {
	r := defaultRedactor(t)
	in := []byte(`{"db":{"url":"postgres://u:S3cr3tPw@h/db","port":5432,"ratio":1.50},"tags":["a","DB_PASSWORD=hunter2xyz"]}`)
	out, n := r.MaskJSON(in)
	if n != 2 || strings.Contains(string(out), "S3cr3tPw") || strings.Contains(string(out), "hunter2xyz") ||
		!strings.Contains(string(out), `"port":5432`) || !strings.Contains(string(out), `"ratio":1.50`) {
		t.Errorf("MaskJSON = %s (%d)", out, n)
	}
	if out, n := r.MaskJSON([]byte(`{"a":1}`)); n != 0 || string(out) != `{"a":1}` {
		t.Errorf("MaskJSON without secrets = %s", out)
	}
	if out, n := r.MaskJSON([]byte("not json password=hunter2xyz")); n != 1 || strings.Contains(string(out), "hunter2xyz") {
		t.Errorf("MaskJSON on text = %s", out)
	}
	// Matched as decoded values: a YAML password ending its value, and a
	// quoted token whose quotes are escaped in the raw JSON.
	for _, in := range []string{`{"note":"password: hunter2abc"}`, `{"cfg":"token = \"q8Zr2kLmN0pX\""}`, `["api_key: \u0073k9Qw2eRt5yU"]`} {
		if out, n := r.MaskJSON([]byte(in)); n != 1 || strings.Contains(string(out), "hunter2abc") || strings.Contains(string(out), "q8Zr2kLmN0pX") || strings.Contains(string(out), "k9Qw2eRt5yU") {
			t.Errorf("MaskJSON(%s) = %s (%d)", in, out, n)
		}
	}
}

func TestRedactLiterals(t *testing.T) {
	r := defaultRedactor(t).WithLiterals(func() []string { return []string{"tok-s3cr3ts3cr3t"} })
	out, n := r.Mask("query tok-s3cr3ts3cr3t and password=hunter2xyz")
	if out != "query [REDACTED] and password=[REDACTED]" || n != 2 {
		t.Errorf("Mask = %q %d", out, n)
	}
	if out, n := r.MaskJSON([]byte(`{"q":"tok-s3cr3ts3cr3t"}`)); n != 1 || string(out) != `{"q":"[REDACTED]"}` {
		t.Errorf("MaskJSON = %s %d", out, n)
	}
	// Bytes too, same length, so an exact read cut from them keeps offsets.
	if out, n := r.MaskBytes([]byte("\x00tok-s3cr3ts3cr3t\x01")); n != 1 || string(out) != "\x00"+strings.Repeat("*", 16)+"\x01" {
		t.Errorf("MaskBytes = %q %d", out, n)
	}
}

// The built-in patterns are not compiled when a Redactor is made (only on
// first use), so they must compile: a broken default would otherwise
// panic in the first masking instead of refusing the config.
func TestBuiltinRedactPatternsCompile(t *testing.T) {
	for _, p := range append(append([]string{}, DefaultSecretPatterns...), DefaultRedactPatterns...) {
		if _, err := compileRedactRules(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
}

// A pattern the operator wrote is still checked when the Redactor is
// made, next to deferred built-in ones.
func TestUserRedactPatternCheckedAtOnce(t *testing.T) {
	_, err := NewRedactor("security.redact.patterns", append(append([]string{}, DefaultRedactPatterns...), "(unclosed"), DefaultReplacement)
	if e := errcode.As(err); e == nil || e.Code != errcode.ConfigInvalid || e.Field != fmt.Sprintf("security.redact.patterns[%d]", len(DefaultRedactPatterns)) {
		t.Fatalf("err = %v, want CONFIG_INVALID naming the bad pattern's index", err)
	}
	r, err := NewRedactor("security.redact.patterns", append(append([]string{}, DefaultRedactPatterns...), `zz(?P<secret>[0-9]{6})`), DefaultReplacement)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := r.Mask("code zz123456 and AKIAIOSFODNN7EXAMPLE"); n != 2 || strings.Contains(got, "123456") || strings.Contains(got, "AKIAIOSFODNN7EXAMPLE") {
		t.Errorf("Mask = %q, %d spans", got, n)
	}
}

// The literal index finds every offset of every leading literal that
// eachLiteral finds, so masking through it gives the same spans: over the
// Go standard library and over random mixes of credential fragments in
// both cases.
func TestLiteralIndexFindsWhatEachLiteralFinds(t *testing.T) {
	r := defaultRedactor(t)
	rules := r.rules.get()
	idx := r.rules.lits
	if idx == nil {
		t.Fatal("the default rules have no literal index")
	}
	check := func(name string, in []byte) {
		t.Helper()
		st := new(matchState)
		st.reset(in)
		occ := st.literalOffsets(idx)
		for id := range idx.lits {
			var want []int
			eachLiteral(in, &idx.lits[id], freshState(in), func(start int) bool {
				want = append(want, start)
				return false
			})
			slices.Sort(want)
			if !slices.Equal(occ[id], want) {
				t.Fatalf("%s: literal %q (fold %v) at %v, eachLiteral finds %v", name, idx.lits[id].b, idx.lits[id].fold, occ[id], want)
			}
		}
		if got, want := r.spansWith(in, rules, idx), r.spansWith(in, rules, nil); !slices.Equal(got, want) {
			t.Fatalf("%s: spans %v, literal by literal %v", name, got, want)
		}
	}
	frags := []string{"AKIA", "x", "_", " ", "\n", "=", ":", "\"", "'", "@", "://", "password", "PassWord", "PASSWD", "pwd",
		"api_key", "APIKEY", "token", "Secret", "ghp_", "sk-", "sk_live_", "xoxb-", "eyJ", "-----BEGIN RSA PRIVATE KEY-----",
		"machine", "Authorization: Bearer ", "hf_", "d2m_", ":AA", "mistral", "ſ", "\u212a", "AccountKey=", "_authToken=",
		"hunter2xyz", strings.Repeat("aB3d", 11), "é", "pa", "ss", "to", "ke", "n"}
	rng := rand.New(rand.NewSource(11))
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := rng.Intn(20); n > 0; n-- {
			b.WriteString(frags[rng.Intn(len(frags))])
		}
		check(fmt.Sprintf("mix %d", i), []byte(b.String()))
	}
	if testing.Short() {
		return
	}
	for i, f := range gorootCorpus(t) {
		if i%4 == 0 { // a quarter of the files keeps the test short
			check(f.rel, f.data)
		}
	}
}

// freshState is a matchState for content.
func freshState(content []byte) *matchState {
	st := new(matchState)
	st.reset(content)
	return st
}
