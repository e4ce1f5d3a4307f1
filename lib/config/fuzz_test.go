package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
)

// FuzzLoad loads hostile .dir2mcp.yaml files (with a fixed environment):
// Load either succeeds or fails with CONFIG_INVALID / TLS_CONFIG_INVALID,
// never anything uncoded, and a config it accepts passes validation again
// unchanged.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		ExampleYAML(), "", "---\n", "null", "[]", "- a\n- b\n", "a: b\n---\nc: d\n", "version: 1\n", "version: 99\n",
		"mistral:\n  api_key: ${MISTRAL_API_KEY}\n", "mistral:\n  api_key: ${NOPE:-x}\n", "mistral: {api_key: \"${\"}\n",
		"server:\n  listen: 127.0.0.1:0\n  tls: {cert_file: /nonexistent, key_file: ''}\n", "server:\n  listen: '[::1'\n",
		"ingest:\n  size_caps_mb: {pdf: -1, txt: 1e309}\n", "ingest:\n  archives: {depth: 99999999999999999999}\n",
		"security:\n  path_excludes: ['[', '**/**/**']\n  secret_patterns: ['(a', '(?P<x>']\n", "x: &a [*a]\n", "a: &a {b: *a}\n",
		"a: !!binary AAAA\n", "? [a]\n: b\n", "server: {listen: 1, allowed_origins: 3}\n", "\t- tab\n", "\xff\xfe\x00",
		"secrets:\n  file: {path: ../../../../etc/passwd}\n", "embed:\n  batch_size: 0x7fffffffffffffff\n", "x402:\n  mode: on\n  price: -1\n",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	env := map[string]string{"MISTRAL_API_KEY": "env-key", "HOME": dir}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	f.Fuzz(func(t *testing.T, yaml string) {
		defer hangcheck.Arm()()
		if err := os.WriteFile(filepath.Join(dir, DefaultFileName), []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, src, err := Load(LoadOptions{Dir: dir, Env: lookup})
		if err != nil {
			if c := errcode.Of(err); c != errcode.ConfigInvalid && c != errcode.TLSConfigInvalid {
				t.Fatalf("Load: %s error %v", c, err)
			}
			return
		}
		if err := validate(cfg, src); err != nil {
			t.Fatalf("an accepted config fails validation again: %v", err)
		}
	})
}
