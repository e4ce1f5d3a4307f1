package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secretValue = "sk-TEST-9f8e7d6c5b4a"

func TestSecretFromCanonicalEnv(t *testing.T) {
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"MISTRAL_API_KEY": secretValue})})
	if err != nil {
		t.Fatal(err)
	}
	k := cfg.Mistral.APIKey
	if k.Value != secretValue || k.Source != "env:MISTRAL_API_KEY" || src.Of("mistral.api_key") != "env:MISTRAL_API_KEY" {
		t.Errorf("mistral key source=%q src=%q set=%v", k.Source, src.Of("mistral.api_key"), k.IsSet())
	}
	if e := cfg.STT.ElevenLabs.APIKey; e.IsSet() || e.Source != "env:ELEVENLABS_API_KEY" {
		t.Errorf("elevenlabs key: source=%q set=%v", e.Source, e.IsSet())
	}
}

func TestSecretReferenceInFile(t *testing.T) {
	body := "mistral:\n  api_key: ${MY_MISTRAL}\nstt:\n  elevenlabs:\n    api_key: ${EL:-}\n"
	cfg, src, err := loadYAML(t, body, map[string]string{"MY_MISTRAL": secretValue})
	if err != nil {
		t.Fatal(err)
	}
	if k := cfg.Mistral.APIKey; k.Value != secretValue || k.Source != "env:MY_MISTRAL" || k.Ref != "${MY_MISTRAL}" {
		t.Errorf("key = source %q ref %q", k.Source, k.Ref)
	}
	if src.Of("mistral.api_key") != SourceFile {
		t.Errorf("setting source = %s", src.Of("mistral.api_key"))
	}
	if len(src.Warnings) != 0 {
		t.Errorf("references must not warn: %v", src.Warnings)
	}
	// The canonical variable beats the file's reference (SPEC §16.1.1).
	cfg, _, err = loadYAML(t, body, map[string]string{"MY_MISTRAL": "other", "MISTRAL_API_KEY": secretValue})
	if err != nil {
		t.Fatal(err)
	}
	if k := cfg.Mistral.APIKey; k.Value != secretValue || k.Source != "env:MISTRAL_API_KEY" {
		t.Errorf("canonical env lost: %q", k.Source)
	}
}

func TestPlaintextSecretInFileWarns(t *testing.T) {
	cfg, src, err := loadYAML(t, "stt:\n  elevenlabs:\n    api_key: "+secretValue+"\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := cfg.STT.ElevenLabs.APIKey; k.Value != secretValue || k.Source != "config" {
		t.Errorf("literal key source %q", k.Source)
	}
	if len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "plaintext secret") || !strings.Contains(src.Warnings[0], "stt.elevenlabs.api_key") {
		t.Fatalf("warnings = %v", src.Warnings)
	}
	if strings.Contains(src.Warnings[0], secretValue) {
		t.Errorf("warning leaks the secret: %s", src.Warnings[0])
	}
	// ${VAR:-literal} falling back to its default is plaintext too.
	_, src, _ = loadYAML(t, "mistral:\n  api_key: ${NOPE:-"+secretValue+"}\n", nil)
	if len(src.Warnings) != 1 {
		t.Errorf("default-literal secret did not warn: %v", src.Warnings)
	}
}

func TestConfigPrintOutputIsNotAKey(t *testing.T) {
	_, _, err := loadYAML(t, "mistral:\n  api_key: <from env MISTRAL_API_KEY>\n", nil)
	wantConfigErr(t, err, "mistral.api_key", "config print", "${MISTRAL_API_KEY}")
	_, _, err = loadYAML(t, "mistral:\n  api_key: {source: env, name: X}\n", nil)
	wantConfigErr(t, err, "mistral.api_key", "want a string such as ${MISTRAL_API_KEY}")
}

func writeSecretStore(t *testing.T, dir, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, ".dir2mcp", "secret.env")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
	return p
}

func TestSecretsFileStore(t *testing.T) {
	dir := t.TempDir()
	writeSecretStore(t, dir, "# keys\nexport MISTRAL_API_KEY=\""+secretValue+"\"\nELEVENLABS_API_KEY='el-1'\n", 0o600)
	cfg, _, err := Load(LoadOptions{Dir: dir, Env: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if k := cfg.Mistral.APIKey; k.Value != secretValue || k.Source != "file:.dir2mcp/secret.env" {
		t.Errorf("mistral from store: source %q", k.Source)
	}
	if k := cfg.STT.ElevenLabs.APIKey; k.Value != "el-1" {
		t.Errorf("elevenlabs from store: source %q", k.Source)
	}
	// Env still wins over the store.
	cfg, _, err = Load(LoadOptions{Dir: dir, Env: env(map[string]string{"MISTRAL_API_KEY": "from-env"})})
	if err != nil || cfg.Mistral.APIKey.Value != "from-env" {
		t.Errorf("env did not win: %q %v", cfg.Mistral.APIKey.Source, err)
	}
	// provider env never reads the store.
	cfg, _, err = Load(LoadOptions{Dir: dir, Env: env(map[string]string{"DIR2MCP_SECRETS_PROVIDER": "env"})})
	if err != nil || cfg.Mistral.APIKey.IsSet() {
		t.Errorf("provider env read the store: %q %v", cfg.Mistral.APIKey.Source, err)
	}
}

func TestSecretsFileRefusedWhenGroupReadable(t *testing.T) {
	dir := t.TempDir()
	p := writeSecretStore(t, dir, "MISTRAL_API_KEY="+secretValue+"\n", 0o644)
	_, _, err := Load(LoadOptions{Dir: dir, Env: env(nil)})
	e := wantConfigErr(t, err, "secrets.file.path", p, "0644", "chmod 600")
	if strings.Contains(e.Message, secretValue) {
		t.Errorf("error leaks the secret")
	}
	// Not read (so not refused) when the env already supplies every key.
	if _, _, err := Load(LoadOptions{Dir: dir, Env: env(map[string]string{"MISTRAL_API_KEY": "a", "ELEVENLABS_API_KEY": "b", "OPENAI_API_KEY": "c"})}); err != nil {
		t.Errorf("store read although not needed: %v", err)
	}
}

func TestSecretsFileMissing(t *testing.T) {
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(map[string]string{"DIR2MCP_SECRETS_PROVIDER": "file"})})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mistral.APIKey.IsSet() || len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "does not exist") {
		t.Errorf("warnings = %v", src.Warnings)
	}
}

func TestKeychainUnsupported(t *testing.T) {
	_, _, err := loadYAML(t, "secrets:\n  provider: keychain\n", nil)
	wantConfigErr(t, err, "secrets.provider", "keychain is not supported", "file", ":2")
}

func TestSecretFileReadWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s", "secret.env")
	in := map[string]string{"A_KEY": `we"ird va#lue\`, "B": "plain", "C": ""}
	if err := WriteSecretFile(p, in); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %o", fi.Mode().Perm())
	}
	out, err := ReadSecretFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(out) != fmt.Sprint(in) {
		t.Errorf("round trip: %q != %q", out, in)
	}
	if _, err := ReadSecretFile(p + ".none"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file error = %v", err)
	}
	os.WriteFile(p, []byte("NOT A LINE\n"), 0o600)
	_, err = ReadSecretFile(p)
	wantConfigErr(t, err, "secrets.file.path", ":1:")
	if err := WriteSecretFile(p, map[string]string{"bad name": "x"}); err == nil {
		t.Errorf("invalid name written")
	}
}

// No output path may carry a secret's plaintext.
func TestNoPlaintextSecretInOutputs(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "stt:\n  elevenlabs:\n    api_key: lit-"+secretValue+"\n")
	writeSecretStore(t, dir, "OTHER=x\n", 0o600)
	cfg, src, err := Load(LoadOptions{Dir: dir, Env: env(map[string]string{"MISTRAL_API_KEY": "env-" + secretValue})})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Mistral.APIKey.IsSet() || !cfg.STT.ElevenLabs.APIKey.IsSet() {
		t.Fatal("secrets not resolved")
	}
	var outputs = map[string][]byte{}
	for _, f := range []string{"yaml", "json"} {
		var b bytes.Buffer
		if err := cfg.Print(&b, src, f); err != nil {
			t.Fatal(err)
		}
		outputs["print "+f] = b.Bytes()
	}
	snap := filepath.Join(dir, ".dir2mcp", SnapshotFileName)
	if err := WriteSnapshot(snap, cfg, src); err != nil {
		t.Fatal(err)
	}
	outputs["snapshot"], _ = os.ReadFile(snap)
	j, _ := json.Marshal(cfg)
	outputs["json.Marshal"] = j
	outputs["fmt"] = []byte(fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg.Mistral.APIKey))
	outputs["warnings"] = []byte(strings.Join(src.Warnings, "\n"))
	for name, b := range outputs {
		if bytes.Contains(b, []byte(secretValue)) {
			t.Errorf("%s contains the secret:\n%s", name, b)
		}
	}
	if !bytes.Contains(outputs["print yaml"], []byte("api_key: <from env MISTRAL_API_KEY>")) {
		t.Errorf("print yaml lacks the env source:\n%s", outputs["print yaml"])
	}
	if !bytes.Contains(outputs["snapshot"], []byte("api_key: {source: env, name: MISTRAL_API_KEY, set: true}")) ||
		!bytes.Contains(outputs["snapshot"], []byte("api_key: {source: config, set: true}")) {
		t.Errorf("snapshot lacks secret metadata:\n%s", outputs["snapshot"])
	}
}
