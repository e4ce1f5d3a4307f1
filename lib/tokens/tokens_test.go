package tokens

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestAddListRevoke(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	secret, tok, err := Add(p, "ci", []string{"dir2mcp.search"}, []string{"docs/"}, now.Add(24*time.Hour), now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, Prefix) || len(secret) != len(Prefix)+64 || tok.SHA256 != Hash(secret) {
		t.Fatalf("token %q entry %+v", secret, tok)
	}
	raw, _ := os.ReadFile(p)
	if strings.Contains(string(raw), secret) || strings.Contains(string(raw), secret[len(Prefix):]) {
		t.Fatal("the tokens file holds the token itself")
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("tokens file mode %v", fi.Mode().Perm())
	}
	if _, _, err := Add(p, "ci", nil, nil, time.Time{}, now); errcode.Of(err) != errcode.ConfigInvalid {
		t.Errorf("adding an existing name: %v", err)
	}
	if _, _, err := Add(p, "owner", nil, nil, time.Time{}, now); err == nil {
		t.Error("owner is reserved")
	}
	if _, _, err := Add(p, "Bad Name", nil, nil, time.Time{}, now); err == nil {
		t.Error("bad label accepted")
	}
	if _, _, err := Add(p, "old", nil, nil, now.Add(-time.Hour), now); err == nil {
		t.Error("expiry in the past accepted")
	}
	if err := Revoke(p, "ci", now); err != nil {
		t.Fatal(err)
	}
	if err := Revoke(p, "nope", now); err == nil {
		t.Error("revoking an unknown name")
	}
	list, err := List(p)
	if err != nil || len(list) != 1 || list[0].State(now) != Revoked {
		t.Fatalf("list = %+v %v", list, err)
	}
	// A revoked name may be reused.
	if _, _, err := Add(p, "ci", nil, nil, time.Time{}, now); err != nil {
		t.Errorf("re-adding a revoked name: %v", err)
	}
}

func TestInsecureFileIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	if _, _, err := Add(p, "a", nil, nil, time.Time{}, now); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o644)
	if _, err := List(p); errcode.Of(err) != errcode.ConfigInvalid || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("List of a world-readable file: %v", err)
	}
	if _, err := NewRegistry(p, p+".used"); err == nil {
		t.Error("a registry on a world-readable file must fail")
	}
}

func TestRegistryFollowsTheFile(t *testing.T) {
	dir := t.TempDir()
	p, usage := filepath.Join(dir, FileName), filepath.Join(dir, UsageName)
	r, err := NewRegistry(p, usage)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Lookup("d2m_x", now); !errors.Is(err, ErrUnknown) {
		t.Fatalf("no file: %v", err)
	}
	a, _, _ := Add(p, "a", []string{"dir2mcp.search"}, nil, time.Time{}, now)
	b, _, _ := Add(p, "b", nil, []string{"src/"}, now.Add(time.Hour), now)
	if tok, err := r.Lookup(a, now); err != nil || tok.Label != "a" || tok.Tools[0] != "dir2mcp.search" {
		t.Fatalf("lookup a: %+v %v", tok, err)
	}
	if tok, err := r.Lookup(b, now.Add(2*time.Hour)); !errors.Is(err, ErrExpired) || tok.Label != "b" {
		t.Errorf("expired b: %+v %v", tok, err)
	}
	Revoke(p, "a", now)
	if tok, err := r.Lookup(a, now); !errors.Is(err, ErrRevoked) || tok.Label != "a" {
		t.Errorf("revoked a: %+v %v", tok, err)
	}
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	if u := ReadUsage(usage); !u["a"].Equal(now) || !u["b"].IsZero() {
		t.Errorf("usage = %v", u)
	}
	os.Chmod(p, 0o640)
	if _, err := r.Lookup(a, now); errcode.Of(err) != errcode.ConfigInvalid {
		t.Errorf("a file made group-readable while serving must stop working: %v", err)
	}
}

func TestCleanPaths(t *testing.T) {
	got, err := CleanPaths([]string{"./docs/", "src/a.go", "docs/", " x\\y "})
	if err != nil || strings.Join(got, ",") != "docs/,src/a.go,x/y" {
		t.Errorf("CleanPaths = %v %v", got, err)
	}
	for _, bad := range []string{"../x", "/etc", ".", "a/../../b"} {
		if _, err := CleanPaths([]string{bad}); err == nil {
			t.Errorf("CleanPaths(%q) accepted", bad)
		}
	}
}
