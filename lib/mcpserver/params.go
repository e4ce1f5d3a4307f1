package mcpserver

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// param declares one argument of a tool. It is the single source of the
// tool's contract: the input schema served in tools/list is generated from
// the tool's params (inputSchema), and parseArgs validates a call against
// the same params before the tool runs. Limits and enums are taken from
// the constants of the code that enforces them (retrieve.MaxK,
// retrieve.Indexes, ...), never written again.
type param struct {
	name, desc string
	kind       string // JSON Schema type: string, integer, boolean, array (of strings), object
	required   bool   // a required string must also be non-blank (minLength 1)
	enum       []string
	min, max   int64
	hiddenMax  bool // max is a sanity cap the schema does not advertise
	def        any  // the schema's default; also what an absent argument reads as
}

// The param builders.

func str(name, desc string) param { return param{name: name, desc: desc, kind: "string"} }

// oneOf is a string restricted to values; an absent or empty value reads
// as def.
func oneOf(name, desc string, values []string, def string) param {
	return param{name: name, desc: desc, kind: "string", enum: values, def: def}
}

// integer is an integer in [lo, hi].
func integer(name, desc string, lo, hi int64) param {
	return param{name: name, desc: desc, kind: "integer", min: lo, max: hi}
}

// atLeast is an integer of at least lo, capped (unadvertised) at limit.
func atLeast(name, desc string, lo, limit int64) param {
	return param{name: name, desc: desc, kind: "integer", min: lo, max: limit, hiddenMax: true}
}

func boolean(name, desc string) param { return param{name: name, desc: desc, kind: "boolean"} }

// strList is an array of strings, each one of items when items is set.
func strList(name, desc string, items ...string) param {
	return param{name: name, desc: desc, kind: "array", enum: items}
}

// object is a JSON object, passed through raw.
func object(name, desc string) param { return param{name: name, desc: desc, kind: "object"} }

func (p param) need() param             { p.required = true; return p }
func (p param) withDefault(v any) param { p.def = v; return p }

// maxLine bounds line and page numbers; maxMs bounds times in milliseconds.
const (
	maxLine = math.MaxInt32
	maxMs   = 1 << 62
)

// inputSchema is the JSON Schema of a tool taking ps: a closed object.
func inputSchema(ps []param) json.RawMessage {
	props := jsonObject{}
	var required []string
	for _, p := range ps {
		props = append(props, jsonField{p.name, p.schema()})
		if p.required {
			required = append(required, p.name)
		}
	}
	s := jsonObject{{"type", "object"}, {"additionalProperties", false}, {"properties", props}}
	if len(required) > 0 {
		s = append(s, jsonField{"required", required})
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic("mcpserver: input schema: " + err.Error())
	}
	return b
}

func (p param) schema() jsonObject {
	s := jsonObject{{"type", p.kind}}
	switch p.kind {
	case "string":
		if len(p.enum) > 0 {
			s = append(s, jsonField{"enum", p.enum})
		}
		if p.required {
			s = append(s, jsonField{"minLength", 1})
		}
	case "integer":
		s = append(s, jsonField{"minimum", p.min})
		if !p.hiddenMax {
			s = append(s, jsonField{"maximum", p.max})
		}
	case "array":
		items := jsonObject{{"type", "string"}}
		if len(p.enum) > 0 {
			items = append(items, jsonField{"enum", p.enum})
		}
		s = append(s, jsonField{"items", items})
	}
	if p.def != nil {
		s = append(s, jsonField{"default", p.def})
	}
	return append(s, jsonField{"description", p.desc})
}

// jsonObject is a JSON object that keeps its keys in order.
type jsonObject []jsonField

type jsonField struct {
	key string
	val any
}

func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// args are a call's arguments, validated against the tool's params: the
// accessors cannot fail, and an absent argument reads as its default.
type args struct {
	m      map[string]json.RawMessage
	params []param
	ints   map[string]int
	strs   map[string]string
}

// parseArgs decodes raw (a JSON object, or empty) and validates it against
// ps in order, with MISSING_FIELD / INVALID_FIELD / INVALID_RANGE errors
// naming the field (the SDK's generic validation would not): unknown
// arguments, wrong types, blank required strings, values outside an enum or
// a range.
func parseArgs(raw json.RawMessage, ps []param) (*args, error) {
	a := &args{m: map[string]json.RawMessage{}, params: ps, ints: map[string]int{}, strs: map[string]string{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && string(raw) != "null" {
		if raw[0] != '{' {
			return nil, errcode.FieldError(errcode.InvalidField, "arguments", "arguments must be a JSON object")
		}
		if err := json.Unmarshal(raw, &a.m); err != nil {
			return nil, errcode.FieldError(errcode.InvalidField, "arguments", "arguments are not valid JSON: %v", err)
		}
	}
	var unknown []string
	for k := range a.m {
		if !slices.ContainsFunc(ps, func(p param) bool { return p.name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if len(ps) == 0 {
			return nil, errcode.FieldError(errcode.InvalidField, unknown[0], "unknown argument %q (this tool takes no arguments)", unknown[0])
		}
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i] = p.name
		}
		return nil, errcode.FieldError(errcode.InvalidField, unknown[0], "unknown argument %q (allowed: %s)", unknown[0], strings.Join(names, ", "))
	}
	for _, p := range ps {
		if err := a.check(p); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// check validates p's argument, keeping strings and integers decoded.
func (a *args) check(p param) error {
	raw, ok := a.m[p.name]
	if !ok || string(raw) == "null" {
		if p.required {
			return errcode.FieldError(errcode.MissingField, p.name, "%s is required", p.name)
		}
		return nil
	}
	switch p.kind {
	case "string":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return errcode.FieldError(errcode.InvalidField, p.name, "%s must be a string", p.name)
		}
		if p.required && strings.TrimSpace(s) == "" {
			return errcode.FieldError(errcode.MissingField, p.name, "%s must not be empty", p.name)
		}
		if s != "" && len(p.enum) > 0 && !slices.Contains(p.enum, s) {
			return errcode.NotOneOf(p.name, s, p.enum)
		}
		a.strs[p.name] = s
	case "integer":
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil || f != float64(int64(f)) {
			return errcode.FieldError(errcode.InvalidField, p.name, "%s must be an integer", p.name)
		}
		if n := int64(f); n < p.min || n > p.max {
			return errcode.OutOfRange(p.name, p.min, p.max, n)
		}
		a.ints[p.name] = int(f)
	case "boolean":
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return errcode.FieldError(errcode.InvalidField, p.name, "%s must be a boolean", p.name)
		}
	case "array":
		var v []string
		if err := json.Unmarshal(raw, &v); err != nil {
			return errcode.FieldError(errcode.InvalidField, p.name, "%s must be an array of strings", p.name)
		}
		for _, s := range v {
			if len(p.enum) > 0 && !slices.Contains(p.enum, s) {
				return errcode.NotOneOf(p.name, s, p.enum)
			}
		}
	case "object":
		if v := bytes.TrimSpace(raw); len(v) == 0 || v[0] != '{' {
			return errcode.FieldError(errcode.InvalidField, p.name, "%s must be a JSON object", p.name)
		}
	}
	return nil
}

func (a *args) param(name string) param {
	for _, p := range a.params {
		if p.name == name {
			return p
		}
	}
	panic("mcpserver: undeclared argument " + name)
}

// has reports whether the call gave name.
func (a *args) has(name string) bool {
	a.param(name)
	v, ok := a.m[name]
	return ok && string(v) != "null"
}

// str returns a string argument; an absent or empty one reads as the
// default ("" without one).
func (a *args) str(name string) string {
	p := a.param(name)
	if s := a.strs[name]; s != "" || p.def == nil {
		return s
	}
	return p.def.(string)
}

// integer returns an integer argument, or its default when absent (0
// without one).
func (a *args) integer(name string) int {
	p := a.param(name)
	if n, ok := a.ints[name]; ok {
		return n
	}
	d, _ := p.def.(int)
	return d
}

// boolean returns a boolean argument, or its default when absent.
func (a *args) boolean(name string) bool {
	p := a.param(name)
	if !a.has(name) {
		d, _ := p.def.(bool)
		return d
	}
	var b bool
	_ = json.Unmarshal(a.m[name], &b)
	return b
}

// strings returns a string-array argument.
func (a *args) strings(name string) []string {
	if !a.has(name) {
		return nil
	}
	var v []string
	_ = json.Unmarshal(a.m[name], &v)
	return v
}

// object returns an object argument as raw JSON.
func (a *args) object(name string) json.RawMessage {
	if !a.has(name) {
		return nil
	}
	return bytes.TrimSpace(a.m[name])
}
