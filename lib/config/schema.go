package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// kind is the value type of a config leaf.
type kind int

const (
	kindString kind = iota
	kindBool
	kindInt
	kindFloat
	kindDuration
	kindSecret
	kindList      // []string
	kindFloatMap  // map[string]float64
	kindStringMap // map[string]string
)

// kindNames are the type names shown in EnvVar.Kind and error messages.
var kindNames = [...]string{
	kindString:    "string",
	kindBool:      "bool",
	kindInt:       "int",
	kindFloat:     "number",
	kindDuration:  "duration",
	kindSecret:    "secret",
	kindList:      "list",
	kindFloatMap:  "map",
	kindStringMap: "map",
}

func (k kind) String() string { return kindNames[k] }

// leaf is one settable config key.
type leaf struct {
	path  string // dotted yaml key path, e.g. "ingest.pdf.mode"
	index []int  // reflect field index path from Config
	kind  kind
	env   string // override env var; for secrets the canonical one
}

func (l *leaf) value(cfg *Config) reflect.Value {
	return reflect.ValueOf(cfg).Elem().FieldByIndex(l.index)
}

var (
	durationType = reflect.TypeFor[Duration]()
	secretType   = reflect.TypeFor[Secret]()

	// leaves lists every leaf of Config in declaration order.
	leaves     = buildLeaves()
	leafByPath = func() map[string]*leaf {
		m := make(map[string]*leaf, len(leaves))
		for i := range leaves {
			m[leaves[i].path] = &leaves[i]
		}
		return m
	}()
)

func buildLeaves() []leaf {
	var out []leaf
	walkType(reflect.TypeFor[Config](), "", nil, "", &out)
	return out
}

// walkType appends the leaves of struct type t. secretEnv is the canonical
// env var inherited from an ancestor's secret tag.
func walkType(t reflect.Type, prefix string, index []int, secretEnv string, out *[]leaf) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := yamlName(f)
		if name == "" {
			continue
		}
		path := joinPath(prefix, name)
		idx := append(append([]int(nil), index...), i)
		env := secretEnv
		if tag := f.Tag.Get("secret"); tag != "" {
			env = tag
		}
		if f.Type.Kind() == reflect.Struct && f.Type != secretType {
			walkType(f.Type, path, idx, env, out)
			continue
		}
		k := kindOf(f.Type)
		l := leaf{path: path, index: idx, kind: k, env: envName(path)}
		if k == kindSecret {
			if env == "" {
				panic("config: secret field " + path + " has no secret tag")
			}
			l.env = env
		}
		*out = append(*out, l)
	}
}

func kindOf(t reflect.Type) kind {
	switch {
	case t == durationType:
		return kindDuration
	case t == secretType:
		return kindSecret
	}
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBool
	case reflect.Int, reflect.Int64:
		return kindInt
	case reflect.Float64:
		return kindFloat
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return kindList
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			switch t.Elem().Kind() {
			case reflect.Float64:
				return kindFloatMap
			case reflect.String:
				return kindStringMap
			}
		}
	}
	panic(fmt.Sprintf("config: unsupported field type %s", t))
}

// yamlName returns the yaml key of f, or "" when f is not serialized.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

func joinPath(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// envName is the DIR2MCP_ override variable for key path p.
func envName(p string) string {
	return "DIR2MCP_" + strings.ToUpper(strings.ReplaceAll(p, ".", "_"))
}

// EnvVar is an environment variable that overrides one config key.
type EnvVar struct {
	Name    string // e.g. "DIR2MCP_SERVER_LISTEN"
	KeyPath string // e.g. "server.listen"
	// Kind is the value type: string, bool, int, number, duration, list
	// (comma-separated, "\," for a literal comma, or a JSON array), map
	// ("k=v,k=v" or a JSON object) or secret (the canonical credential
	// variable, e.g. MISTRAL_API_KEY).
	Kind string
}

// EnvVars lists the override variable of every config key, in schema
// order. Secret keys list their canonical credential variable; two keys
// may share one (MISTRAL_API_KEY).
func EnvVars() []EnvVar {
	out := make([]EnvVar, len(leaves))
	for i, l := range leaves {
		out[i] = EnvVar{Name: l.env, KeyPath: l.path, Kind: l.kind.String()}
	}
	return out
}

// KeyPaths lists every settable config key path in schema order.
func KeyPaths() []string {
	out := make([]string, len(leaves))
	for i, l := range leaves {
		out[i] = l.path
	}
	return out
}

// fieldsOf returns the yaml keys of struct type t, by name and in order.
func fieldsOf(t reflect.Type) (map[string]int, []string) {
	m := map[string]int{}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		if n := yamlName(t.Field(i)); n != "" {
			m[n] = i
			names = append(names, n)
		}
	}
	return m, names
}

// suggest returns the candidate closest to s by edit distance when it is
// plausibly a typo, else "".
func suggest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
