package state

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestLockIsExclusiveAndReleased(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	l, err := d.TryLock(IndexLock)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.TryLock(IndexLock)
	if errcode.Of(err) != errcode.IndexLocked || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second lock: %v", err)
	}
	// The vectors lock is independent.
	v, err := d.TryLock(VectorsLock)
	if err != nil {
		t.Fatal(err)
	}
	v.Unlock()
	l.Unlock()
	l2, err := d.TryLock(IndexLock)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

func TestTokenFileIsPrivateAndStable(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	t1, err := d.EnsureToken()
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(d.Join(TokenFile))
	if fi.Mode().Perm() != 0o600 || len(t1.Value) < 32 || t1.Source != "secret.token" {
		t.Fatalf("token %+v mode %v", t1.Source, fi.Mode())
	}
	t2, _ := d.EnsureToken()
	if t2.Value != t1.Value {
		t.Fatal("token changed between runs")
	}
	if strings.Contains(t1.Describe(), t1.Value) {
		t.Fatal("Describe leaks the token")
	}
	c := NewConnection("http://127.0.0.1:1/mcp", t1)
	if err := d.WriteConnection(c); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(d.Join(ConnectionFile))
	if strings.Contains(string(b), t1.Value) || !strings.Contains(string(b), `"token_source": "secret.token"`) {
		t.Fatalf("connection.json: %s", b)
	}
}

func TestReadTokenFileRejectsBadTokens(t *testing.T) {
	p := t.TempDir() + "/tok"
	if _, err := ReadTokenFile(p); errcode.Of(err) != errcode.ConfigInvalid || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing token file: %v", err)
	}
	os.WriteFile(p, []byte("short\n"), 0o600)
	if _, err := ReadTokenFile(p); errcode.Of(err) != errcode.ConfigInvalid {
		t.Fatalf("short token: %v", err)
	}
	os.WriteFile(p, []byte(strings.Repeat("a", 40)+"\n"), 0o644)
	tok, err := ReadTokenFile(p)
	if err != nil || tok.Source != "file" {
		t.Fatalf("%+v %v", tok, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("token file permissions not tightened: %v", fi.Mode())
	}
}

func TestRemoveConnectionOnlyOwnFile(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	c := NewConnection("http://127.0.0.1:1/mcp", Token{})
	c.PID = 4242
	d.WriteConnection(c)
	d.RemoveConnection(os.Getpid())
	if _, err := os.Stat(d.Join(ConnectionFile)); err != nil {
		t.Fatal("removed another server's connection.json")
	}
	d.RemoveConnection(4242)
	if _, err := os.Stat(d.Join(ConnectionFile)); !os.IsNotExist(err) {
		t.Fatal("own connection.json not removed")
	}
}
