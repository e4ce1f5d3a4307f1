package config

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestEnvVarsCoverEveryKey(t *testing.T) {
	vars := EnvVars()
	if len(vars) != len(KeyPaths()) {
		t.Fatalf("%d env vars for %d keys", len(vars), len(KeyPaths()))
	}
	seen := map[string]string{}
	for _, v := range vars {
		if v.Kind == "secret" {
			if v.Name != "MISTRAL_API_KEY" && v.Name != "ELEVENLABS_API_KEY" && v.Name != "OPENAI_API_KEY" {
				t.Errorf("secret %s uses %s", v.KeyPath, v.Name)
			}
			continue
		}
		want := "DIR2MCP_" + strings.ToUpper(strings.ReplaceAll(v.KeyPath, ".", "_"))
		if v.Name != want {
			t.Errorf("%s → %s, want %s", v.KeyPath, v.Name, want)
		}
		if prev, dup := seen[v.Name]; dup {
			t.Errorf("%s shared by %s and %s", v.Name, prev, v.KeyPath)
		}
		seen[v.Name] = v.KeyPath
		if v.Name == "DIR2MCP_AUTH_TOKEN" {
			t.Errorf("%s collides with the bearer token variable", v.KeyPath)
		}
	}
	for _, p := range []string{"server.listen", "chunking.code.max_lines", "search.rrf_k", "x402.route_policy.tools_call.price"} {
		if seen[envName(p)] != p {
			t.Errorf("no env var for %s", p)
		}
	}
}

// Setting every override variable (to the default value in text form)
// reaches its key: the mapping is complete and each kind parses.
func TestEveryEnvVarApplies(t *testing.T) {
	def := Default()
	m := map[string]string{}
	for _, l := range leaves {
		if l.kind == kindSecret {
			continue
		}
		m[l.env] = textOf(t, l.value(def), l.kind)
	}
	cfg, src, err := Load(LoadOptions{Dir: t.TempDir(), Env: env(m)})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range leaves {
		if l.kind == kindSecret {
			continue
		}
		if got := src.Of(l.path); got != "env:"+l.env {
			t.Errorf("%s: source %s after setting %s", l.path, got, l.env)
		}
	}
	if !reflect.DeepEqual(withoutSecrets(cfg), def) {
		t.Errorf("text round trip of defaults through env changed the config")
	}
}

func textOf(t *testing.T, v reflect.Value, k kind) string {
	switch k {
	case kindString:
		return v.String()
	case kindBool:
		return strconv.FormatBool(v.Bool())
	case kindInt:
		return strconv.FormatInt(v.Int(), 10)
	case kindFloat:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case kindDuration:
		return Duration(v.Int()).String()
	case kindList, kindFloatMap, kindStringMap:
		b, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Fatalf("no text form for %s", k)
	return ""
}
