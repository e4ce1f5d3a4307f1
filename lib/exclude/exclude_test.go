package exclude

import (
	"errors"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestDefaultPathExcludes(t *testing.T) {
	e := Default()
	tests := []struct {
		path    string
		pattern string // "" = not excluded
	}{
		{".git/config", "**/.git/**"},
		{"sub/.git/HEAD", "**/.git/**"},
		{".git/", "**/.git/**"},
		{"a/.git/", "**/.git/**"},
		{"node_modules/left-pad/index.js", "**/node_modules/**"},
		{"web/node_modules/", "**/node_modules/**"},
		{".dir2mcp/meta.sqlite", "**/.dir2mcp/**"},
		{".env", "**/.env"},
		{"deploy/.env", "**/.env"},
		{"certs/server.pem", "**/*.pem"},
		{"tls.key", "**/*.key"},
		{"home/.ssh/id_rsa", "**/id_rsa"},
		{"./.env", "**/.env"},
		// Beyond the spec's list (issue 14, 0d).
		{".env.local", "**/.env.*"},
		{"web/.env.production", "**/.env.*"},
		{".ssh/id_ed25519", "**/id_ed25519"},
		{"ID_ECDSA", "**/id_ecdsa"},
		{".netrc", "**/.netrc"},
		{"home/.pgpass", "**/.pgpass"},
		{".docker/config.json", "**/.docker/config.json"},
		{".aws/credentials", "**/.aws/credentials"},
		{"certs/client.P12", "**/*.p12"},
		// Not excluded.
		{"main.go", ""},
		{".github/workflows/ci.yml", ""},
		{".envrc", ""},
		{"id_rsa.pub", ""},
		{"id_ed25519.pub", ""},
		{"config.json", ""},
		{"aws/credentials.go", ""},
		{"keys/", ""},
		{"docs/.gitignore", ""},
		{"", ""},
		{".", ""},
	}
	for _, tt := range tests {
		pat, ok := e.PathExcluded(tt.path)
		if ok != (tt.pattern != "") || pat != tt.pattern {
			t.Errorf("PathExcluded(%q) = %q, %v; want %q", tt.path, pat, ok, tt.pattern)
		}
	}
}

func TestPathExcludedLeavingRoot(t *testing.T) {
	for _, p := range []string{"..", "../x", "a/../../x"} {
		if pat, ok := Default().PathExcluded(p); !ok || pat != ".." {
			t.Errorf("PathExcluded(%q) = %q, %v; want excluded by \"..\"", p, pat, ok)
		}
	}
	// ".." that stays inside the root is cleaned, not rejected.
	if pat, ok := Default().PathExcluded("a/../.env"); !ok || pat != "**/.env" {
		t.Errorf("PathExcluded(a/../.env) = %q, %v", pat, ok)
	}
}

func TestPathExcludedParentDirectory(t *testing.T) {
	e, err := New([]string{"secrets/", "build"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"secrets/a.txt", "x/secrets/deep/a.txt", "build/out.js", "a/build/x/y"} {
		if _, ok := e.PathExcluded(p); !ok {
			t.Errorf("PathExcluded(%q) = false, want true (parent directory excluded)", p)
		}
	}
	// "secrets/" is directory-only: a file named secrets is fine.
	if _, ok := e.PathExcluded("docs/secrets"); ok {
		t.Error("directory-only pattern excluded a file")
	}
}

func TestPathExcludedNegation(t *testing.T) {
	e, err := New([]string{"fixtures/**", "!fixtures/public.txt", "**/*.key", "!**/example.key"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want bool
	}{
		{"fixtures/private.txt", true},
		{"fixtures/public.txt", false},
		// With a negation present, "fixtures/**" does not prune the
		// directory itself, since a file inside may be re-included.
		{"fixtures/", false},
		{"a/prod.key", true},
		{"docs/example.key", false},
	}
	for _, tt := range tests {
		if _, got := e.PathExcluded(tt.path); got != tt.want {
			t.Errorf("PathExcluded(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestNewBadPatternNamesKeyPath(t *testing.T) {
	tests := []struct {
		paths, secrets []string
		field          string
	}{
		{[]string{"ok/**", "[unterminated"}, nil, "security.path_excludes[1]"},
		{nil, []string{"AKIA[0-9A-Z]{16}", "x", "(unclosed"}, "security.secret_patterns[2]"},
		{nil, []string{""}, "security.secret_patterns[0]"},
		{nil, []string{"a*"}, "security.secret_patterns[0]"}, // matches every file
		{nil, []string{"x{2000}"}, "security.secret_patterns[0]"},
	}
	for _, tt := range tests {
		_, err := New(tt.paths, tt.secrets)
		var ce *errcode.Error
		if !errors.As(err, &ce) {
			t.Fatalf("New(%q, %q) error = %v, want *errcode.Error", tt.paths, tt.secrets, err)
		}
		if ce.Code != errcode.ConfigInvalid || ce.Field != tt.field {
			t.Errorf("New(%q, %q) = code %s field %q, want CONFIG_INVALID %q", tt.paths, tt.secrets, ce.Code, ce.Field, tt.field)
		}
		if ce.Message == "" || !strings.Contains(ce.Message, "invalid") {
			t.Errorf("message %q does not explain the problem", ce.Message)
		}
	}
}

func TestNilEngineUsesDefaults(t *testing.T) {
	var e *Engine
	if _, ok := e.PathExcluded(".env"); !ok {
		t.Error("nil engine did not exclude .env")
	}
	if _, ok := e.SecretMatch([]byte("key AKIAIOSFODNN7EXAMPLE")); !ok {
		t.Error("nil engine did not match an AWS key")
	}
	if e.Fingerprint() != Default().Fingerprint() {
		t.Error("nil engine differs from Default()")
	}
}

func TestFingerprint(t *testing.T) {
	a, _ := New([]string{"x"}, []string{"AKIA"})
	b, _ := New([]string{"x"}, []string{"AKIA"})
	c, _ := New([]string{"x"}, []string{"AKIB"})
	d, _ := New([]string{"xAKIA"}, nil)
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("same patterns, different fingerprints")
	}
	if a.Fingerprint() == c.Fingerprint() || a.Fingerprint() == d.Fingerprint() {
		t.Error("different patterns, same fingerprint")
	}
}

func TestEmptyEngine(t *testing.T) {
	e, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.PathExcluded(".env"); ok {
		t.Error("engine without path excludes excluded .env")
	}
	if _, ok := e.SecretMatch([]byte("AKIAIOSFODNN7EXAMPLE")); ok {
		t.Error("engine without secret patterns matched")
	}
}

// Inside directories a walk has checked, PathExcludedIn gives
// PathExcluded's verdict for a file, and DirExcludedIn for a directory, in
// either case spelling.
func TestPathExcludedInAgreesWithPathExcluded(t *testing.T) {
	negated, err := New(append([]string{"docs/private/*.md", "!docs/private/ok.md", "**/*.Secret"}, DefaultPathExcludes...), nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(append([]string{"docs/private/*.md", "**/*.Secret", "**/gen/**"}, DefaultPathExcludes...), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []*Engine{negated, plain} {
		for _, p := range []string{"a.txt", ".env", "A/.ENV", "x/id_rsa", "x/y/Z.PEM", "docs/private/a.md", "docs/private/ok.md",
			"docs/Private/a.md", "k.secret", "K.SECRET", "src/.npmrc", "src/main.go", ".aws/credentials", "a/.Docker/config.json", "x/.git", "x/.GIT", "node_modules", "a/b/Node_Modules", "docs/private", "gen", "a/gen", "a/GEN/x.go", "gen/x.go"} {
			dirsOK := true
			for i := range p {
				if p[i] == '/' {
					if _, ex := e.PathExcluded(p[:i] + "/"); ex {
						dirsOK = false
					}
				}
			}
			if !dirsOK {
				continue // a walk never gets inside
			}
			wp, wok := e.PathExcluded(p)
			gp, gok := e.PathExcludedIn(p)
			if wp != gp || wok != gok {
				t.Errorf("%s: PathExcludedIn %q %v, PathExcluded %q %v", p, gp, gok, wp, wok)
			}
			wp, wok = e.PathExcluded(p + "/")
			gp, gok = e.DirExcludedIn(p)
			if wp != gp || wok != gok {
				t.Errorf("%s/: DirExcludedIn %q %v, PathExcluded %q %v", p, gp, gok, wp, wok)
			}
		}
	}
}
