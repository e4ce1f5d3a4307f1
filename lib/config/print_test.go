package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"gopkg.in/yaml.v3"
)

func TestPrintYAMLWithSources(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "rag:\n  k_default: 7\n")
	cfg, src, err := Load(LoadOptions{Dir: dir, Env: env(map[string]string{"DIR2MCP_SERVER_LISTEN": "127.0.0.1:9000"}),
		Flags: map[string]string{"embed.batch_size": "8"}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := cfg.Print(&b, src, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"k_default: 7 # from " + filepath.Join(dir, DefaultFileName) + ":2",
		"listen: 127.0.0.1:9000 # from env DIR2MCP_SERVER_LISTEN",
		"batch_size: 8 # from flag",
		"api_key: <unset; expects env MISTRAL_API_KEY>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "chunking:\n  max_chars: 2500 #") {
		t.Errorf("default key carries a source comment")
	}
	// Without sources, no comments at all.
	b.Reset()
	cfg.Print(&b, nil, "yaml")
	if strings.Contains(b.String(), "# from") {
		t.Errorf("comments without sources")
	}
}

// The YAML printout, secrets aside, loads back to the same config.
func TestPrintYAMLLoadsBack(t *testing.T) {
	cfg, _, err := loadYAML(t, "rag:\n  system_prompt: \"a: b\\n  c\"\nx402:\n  bazaar:\n    metadata:\n      k: \"on\"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	cfg.Print(&b, nil, "yaml")
	out := b.String()
	// Replace secret display values by their references.
	var lines []string
	for _, ln := range strings.Split(out, "\n") {
		if strings.Contains(ln, "api_key:") {
			continue
		}
		lines = append(lines, ln)
	}
	back, _, err := loadYAML(t, strings.Join(lines, "\n"), nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(withoutSecrets(back), withoutSecrets(cfg)) {
		t.Errorf("round trip differs:\n%s", out)
	}
}

func TestPrintJSON(t *testing.T) {
	cfg := Default()
	var b bytes.Buffer
	if err := cfg.Print(&b, nil, "json"); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b.String())
	}
	server := m["server"].(map[string]any)
	if server["session_inactivity_timeout"] != "24h" || server["max_body_bytes"] != float64(4<<20) {
		t.Errorf("server = %v", server)
	}
	if m["mistral"].(map[string]any)["api_key"] != "<unset>" {
		t.Errorf("api_key = %v", m["mistral"].(map[string]any)["api_key"])
	}
	// Keys keep schema order.
	if !strings.HasPrefix(b.String(), "{\n  \"version\": 1,\n  \"mistral\"") {
		t.Errorf("order: %.60s", b.String())
	}
	if err := cfg.Print(&b, nil, "toml"); errcode.Of(err) != errcode.InvalidField {
		t.Errorf("unknown format: %v", err)
	}
}

func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state", SnapshotFileName)
	// A pre-existing, too-open snapshot is replaced by a 0600 one.
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("old"), 0o644)
	cfg, src, err := Load(LoadOptions{Dir: dir, Env: env(map[string]string{"ELEVENLABS_API_KEY": secretValue})})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSnapshot(p, cfg, src); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("snapshot mode = %o, want 600", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("temp files left: %v", ents)
	}
	data, _ := os.ReadFile(p)
	if bytes.Contains(data, []byte(secretValue)) {
		t.Fatal("snapshot contains the secret")
	}
	var snap struct {
		STT struct {
			ElevenLabs struct {
				APIKey map[string]any `yaml:"api_key"`
			} `yaml:"elevenlabs"`
		} `yaml:"stt"`
		Mistral struct {
			APIKey map[string]any `yaml:"api_key"`
		} `yaml:"mistral"`
	}
	if err := yaml.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"source": "env", "name": "ELEVENLABS_API_KEY", "set": true}
	if !reflect.DeepEqual(snap.STT.ElevenLabs.APIKey, want) {
		t.Errorf("elevenlabs meta = %v", snap.STT.ElevenLabs.APIKey)
	}
	if snap.Mistral.APIKey["set"] != false {
		t.Errorf("mistral meta = %v", snap.Mistral.APIKey)
	}
	// The resolved non-secret values are all there.
	if !bytes.Contains(data, []byte("session_inactivity_timeout: 24h")) {
		t.Errorf("snapshot lacks resolved values:\n%s", data)
	}
}

// An unchanged snapshot is not written again (a restart with the same
// config does not replace or sync it); a too-open one, or a changed
// config, is.
func TestSnapshotUnchangedIsKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, SnapshotFileName)
	cfg, src, err := Load(LoadOptions{Dir: dir, Env: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSnapshot(p, cfg, src); err != nil {
		t.Fatal(err)
	}
	first, _ := os.Stat(p)
	if err := WriteSnapshot(p, cfg, src); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(p); !os.SameFile(first, again) {
		t.Error("an unchanged snapshot was replaced")
	}
	os.Chmod(p, 0o644)
	if err := WriteSnapshot(p, cfg, src); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 || os.SameFile(first, fi) {
		t.Errorf("a too-open snapshot was kept (mode %o)", fi.Mode().Perm())
	}
	cfg.Ingest.MaxFileMB++
	before, _ := os.Stat(p)
	if err := WriteSnapshot(p, cfg, src); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(p); os.SameFile(before, after) {
		t.Error("a changed snapshot was not written")
	}
}
