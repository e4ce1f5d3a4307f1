package mcpserver

import (
	"encoding/json"
	"slices"
	"testing"
)

// Strict lint of the tool schemas, the checks clients that reject sloppy
// schemas apply: input schemas are closed objects whose every property has
// a type and a description, required names exist, defaults respect enums
// and ranges; output schemas are objects that also admit the error result;
// every tool is titled and annotated idempotent and non-destructive; the
// core tools are read-only and closed-world, the provider tools open-world
// (they call a model provider), read-only unless they store a
// representation (transcribe, annotate, transcribe_and_ask).
func TestToolSchemasLint(t *testing.T) {
	s := &Server{}
	for _, td := range s.tools() {
		tl := td.tool
		var in map[string]any
		if err := json.Unmarshal(tl.InputSchema.(json.RawMessage), &in); err != nil {
			t.Fatalf("%s input: %v", tl.Name, err)
		}
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s input must be a closed object", tl.Name)
		}
		props, _ := in["properties"].(map[string]any)
		if props == nil {
			t.Errorf("%s input has no properties object", tl.Name)
		}
		for name, v := range props {
			p := v.(map[string]any)
			if p["type"] == nil || p["description"] == nil {
				t.Errorf("%s.%s lacks type or description", tl.Name, name)
			}
			if def, ok := p["default"]; ok {
				if enum, ok := p["enum"].([]any); ok && !slices.Contains(enum, def) {
					t.Errorf("%s.%s default %v not in enum", tl.Name, name, def)
				}
				if lo, ok := p["minimum"].(float64); ok && def.(float64) < lo {
					t.Errorf("%s.%s default below minimum", tl.Name, name)
				}
				if hi, ok := p["maximum"].(float64); ok && def.(float64) > hi {
					t.Errorf("%s.%s default above maximum", tl.Name, name)
				}
			}
		}
		for _, r := range asList(in["required"]) {
			if props[r.(string)] == nil {
				t.Errorf("%s requires undeclared %v", tl.Name, r)
			}
		}
		var out map[string]any
		if err := json.Unmarshal(tl.OutputSchema.(json.RawMessage), &out); err != nil {
			t.Fatalf("%s output: %v", tl.Name, err)
		}
		oprops, _ := out["properties"].(map[string]any)
		if out["type"] != "object" || oprops["error"] == nil || len(asList(out["anyOf"])) != 2 {
			t.Errorf("%s output must be an object admitting {error}", tl.Name)
		}
		a := tl.Annotations
		if tl.Title == "" || a == nil || !a.IdempotentHint || a.OpenWorldHint == nil || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s annotations: %+v", tl.Name, a)
			continue
		}
		provider := slices.Contains([]string{"dir2mcp.transcribe", "dir2mcp.annotate", "dir2mcp.transcribe_and_ask", "dir2mcp.ask_audio"}, tl.Name)
		stores := provider && tl.Name != "dir2mcp.ask_audio"
		if *a.OpenWorldHint != provider || a.ReadOnlyHint == stores || td.expensive != (provider || tl.Name == "dir2mcp.ask" || tl.Name == "dir2mcp.diff") {
			t.Errorf("%s: openWorld=%v readOnly=%v expensive=%v", tl.Name, *a.OpenWorldHint, a.ReadOnlyHint, td.expensive)
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
