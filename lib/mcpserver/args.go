package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// args decodes and validates tool arguments against the tool's declared
// fields, producing MISSING_FIELD / INVALID_FIELD / INVALID_RANGE errors that
// name the field (the SDK's generic validation would not).
type args struct {
	m map[string]json.RawMessage
}

// parseArgs decodes raw (a JSON object or empty) and rejects keys not in allowed.
func parseArgs(raw json.RawMessage, allowed ...string) (*args, error) {
	a := &args{m: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	if raw[0] != '{' {
		return nil, errcode.FieldError(errcode.InvalidField, "arguments", "arguments must be a JSON object")
	}
	if err := json.Unmarshal(raw, &a.m); err != nil {
		return nil, errcode.FieldError(errcode.InvalidField, "arguments", "arguments are not valid JSON: %v", err)
	}
	var unknown []string
	for k := range a.m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if len(allowed) == 0 {
			return nil, errcode.FieldError(errcode.InvalidField, unknown[0], "unknown argument %q (this tool takes no arguments)", unknown[0])
		}
		return nil, errcode.FieldError(errcode.InvalidField, unknown[0], "unknown argument %q (allowed: %s)", unknown[0], strings.Join(allowed, ", "))
	}
	return a, nil
}

func (a *args) has(name string) bool {
	v, ok := a.m[name]
	return ok && string(v) != "null"
}

// str returns a string argument. With required set, a missing or empty
// value is MISSING_FIELD.
func (a *args) str(name string, required bool) (string, error) {
	if !a.has(name) {
		if required {
			return "", errcode.FieldError(errcode.MissingField, name, "%s is required", name)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a.m[name], &s); err != nil {
		return "", errcode.FieldError(errcode.InvalidField, name, "%s must be a string", name)
	}
	if required && strings.TrimSpace(s) == "" {
		return "", errcode.FieldError(errcode.MissingField, name, "%s must not be empty", name)
	}
	return s, nil
}

// enum returns a string argument restricted to allowed values.
func (a *args) enum(name, def string, allowed ...string) (string, error) {
	s, err := a.str(name, false)
	if err != nil || s == "" {
		return def, err
	}
	if !slices.Contains(allowed, s) {
		return "", errcode.FieldError(errcode.InvalidField, name, "%s must be one of %s; got %q", name, strings.Join(allowed, ", "), s)
	}
	return s, nil
}

// integer returns an integer argument within [lo, hi], or def when absent.
func (a *args) integer(name string, def, lo, hi int) (int, bool, error) {
	if !a.has(name) {
		return def, false, nil
	}
	var f float64
	if err := json.Unmarshal(a.m[name], &f); err != nil || f != float64(int64(f)) {
		return 0, false, errcode.FieldError(errcode.InvalidField, name, "%s must be an integer", name)
	}
	n := int(f)
	if n < lo || n > hi {
		return 0, false, errcode.FieldError(errcode.InvalidRange, name, "%s must be between %d and %d, got %d", name, lo, hi, n)
	}
	return n, true, nil
}

// boolean returns a boolean argument, or def when absent.
func (a *args) boolean(name string, def bool) (bool, error) {
	if !a.has(name) {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(a.m[name], &b); err != nil {
		return false, errcode.FieldError(errcode.InvalidField, name, "%s must be a boolean", name)
	}
	return b, nil
}

// strings returns a string-array argument.
func (a *args) strings(name string) ([]string, error) {
	if !a.has(name) {
		return nil, nil
	}
	var v []string
	if err := json.Unmarshal(a.m[name], &v); err != nil {
		return nil, errcode.FieldError(errcode.InvalidField, name, "%s must be an array of strings", name)
	}
	return v, nil
}

// object returns an object argument as raw JSON.
func (a *args) object(name string, required bool) (json.RawMessage, error) {
	if !a.has(name) {
		if required {
			return nil, errcode.FieldError(errcode.MissingField, name, "%s is required", name)
		}
		return nil, nil
	}
	v := bytes.TrimSpace(a.m[name])
	if len(v) == 0 || v[0] != '{' {
		return nil, errcode.FieldError(errcode.InvalidField, name, "%s must be a JSON object", name)
	}
	return v, nil
}
