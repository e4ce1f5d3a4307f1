package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// env returns a lookup over m only, so tests never see the real
// environment.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// writeConfig writes body as <dir>/.dir2mcp.yaml.
func writeConfig(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, DefaultFileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeConfigB(dir, body string) error {
	return os.WriteFile(filepath.Join(dir, DefaultFileName), []byte(body), 0o644)
}

// loadYAML loads body as the config file of a fresh root with env m.
func loadYAML(t *testing.T, body string, m map[string]string) (*Config, *Sources, error) {
	t.Helper()
	dir := t.TempDir()
	writeConfig(t, dir, body)
	return Load(LoadOptions{Dir: dir, Env: env(m)})
}

// wantConfigErr asserts err is a CONFIG_INVALID *errcode.Error for field
// whose message contains every fragment.
func wantConfigErr(t *testing.T, err error, field string, fragments ...string) *errcode.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want CONFIG_INVALID for %s, got nil", field)
	}
	var e *errcode.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *errcode.Error, got %T: %v", err, err)
	}
	if e.Code != errcode.ConfigInvalid {
		t.Fatalf("code = %s, want CONFIG_INVALID (%v)", e.Code, err)
	}
	if e.Field != field {
		t.Errorf("Field = %q, want %q (%v)", e.Field, field, err)
	}
	for _, f := range fragments {
		if !strings.Contains(e.Message, f) {
			t.Errorf("message %q lacks %q", e.Message, f)
		}
	}
	if errcode.ExitCode(err) != errcode.ExitConfigInvalid {
		t.Errorf("exit code = %d, want %d", errcode.ExitCode(err), errcode.ExitConfigInvalid)
	}
	return e
}

// leafValue returns the value at key path p.
func leafValue(t *testing.T, cfg *Config, p string) any {
	t.Helper()
	l, ok := leafByPath[p]
	if !ok {
		t.Fatalf("no key %s", p)
	}
	return l.value(cfg).Interface()
}

// withoutSecrets returns a copy of cfg with resolved secret values and
// sources cleared, leaving references, for comparing with Default().
func withoutSecrets(cfg *Config) *Config {
	c := *cfg
	for i := range leaves {
		if leaves[i].kind == kindSecret {
			v := reflect.ValueOf(&c).Elem().FieldByIndex(leaves[i].index)
			s := v.Interface().(Secret)
			v.Set(reflect.ValueOf(Secret{Ref: s.Ref}))
		}
	}
	return &c
}
