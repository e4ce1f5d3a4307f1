package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SetInFile creates or edits the file so that Load sees the value, and
// keeps the keys and comments that were there.
func TestSetInFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DefaultFileName)
	if err := SetInFile(path, "server.listen", "127.0.0.1:18123"); err != nil {
		t.Fatal(err)
	}
	cfg, src, err := Load(LoadOptions{Dir: dir, Env: func(string) (string, bool) { return "", false }})
	if err != nil || cfg.Server.Listen != "127.0.0.1:18123" || src.Of("server.listen") != SourceFile {
		t.Fatalf("new file: %v %q %q", err, cfg.Server.Listen, src.Of("server.listen"))
	}
	body := "# my settings\nserver:\n  mcp_path: /x # keep me\n  listen: 127.0.0.1:0\nrag:\n  k_default: 7\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	if err := SetInFile(path, "server.listen", "127.0.0.1:18124"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	for _, want := range []string{"# my settings", "# keep me", "listen: 127.0.0.1:18124", "k_default: 7"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("edited file lacks %q:\n%s", want, b)
		}
	}
	if strings.Count(string(b), "listen:") != 1 || fi.Mode().Perm() != 0o600 {
		t.Errorf("edited file (mode %v):\n%s", fi.Mode().Perm(), b)
	}
	cfg, _, err = Load(LoadOptions{Dir: dir, Env: func(string) (string, bool) { return "", false }})
	if err != nil || cfg.Server.Listen != "127.0.0.1:18124" || cfg.Server.MCPPath != "/x" || cfg.RAG.KDefault != 7 {
		t.Errorf("reloaded: %v %+v", err, cfg.Server)
	}
	if err := os.WriteFile(path, []byte("server: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SetInFile(path, "server.listen", "127.0.0.1:1"); err == nil {
		t.Error("a scalar where a mapping belongs was overwritten")
	}
}
