package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsHonourTheirSchemas calls every served tool with the bounds and
// enum values its tools/list input schema advertises: each advertised
// value is accepted (no argument error on that field, from the tool or
// from what it calls, such as retrieve's request validation), and each
// value just outside the contract is refused with the spec's code naming
// the field. A limit or enum changed in one place only fails here.
func TestToolsHonourTheirSchemas(t *testing.T) {
	f := newProviderServer(t, false, nil)
	f.s.expensive = nil // no rate limit: this test calls the expensive tools a lot
	ctx := context.Background()
	samples := map[string]any{"rel_path": "notes.md", "query": "overlap", "question": "overlap", "pattern": "overlap", "schema_json": map[string]any{"type": "object"}}
	argErr := map[string]bool{string(errcode.InvalidField): true, string(errcode.InvalidRange): true, string(errcode.MissingField): true}
	tools := 0
	for tl, err := range f.cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools++
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		b, _ := json.Marshal(tl.InputSchema)
		json.Unmarshal(b, &in)
		base := map[string]any{}
		for _, r := range in.Required {
			v, ok := samples[r]
			if !ok {
				t.Fatalf("%s: no sample value for required %s", tl.Name, r)
			}
			base[r] = v
		}
		// call returns the code and field of an argument error, if any.
		call := func(name string, v any, omit bool) (string, string) {
			args := map[string]any{}
			for k, x := range base {
				args[k] = x
			}
			if omit {
				delete(args, name)
			} else {
				args[name] = v
			}
			res, err := f.cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: args})
			if err != nil {
				t.Fatalf("%s(%s=%v): %v", tl.Name, name, v, err)
			}
			if !res.IsError {
				return "", ""
			}
			var e toolError
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &e)
			if !argErr[e.Error.Code] {
				return "", "" // failed for another reason (no provider, wrong doc type): the argument was accepted
			}
			return e.Error.Code, e.Error.Field
		}
		accept := func(name string, v any) {
			if code, field := call(name, v, false); field == name {
				t.Errorf("%s: %s=%v is advertised but refused (%s)", tl.Name, name, v, code)
			}
		}
		refuse := func(name string, v any, omit bool, want errcode.Code) {
			if code, field := call(name, v, omit); code != string(want) || field != name {
				t.Errorf("%s: %s=%v (omitted %v) got %q on %q, want %s on %s", tl.Name, name, v, omit, code, field, want, name)
			}
		}
		refuse("zz_unknown", 1, false, errcode.InvalidField)
		for _, r := range in.Required {
			refuse(r, nil, true, errcode.MissingField)
		}
		for name, p := range in.Properties {
			switch p["type"] {
			case "string":
				refuse(name, 5, false, errcode.InvalidField)
				for _, v := range asList(p["enum"]) {
					accept(name, v)
				}
				if p["enum"] != nil {
					refuse(name, "zz-not-a-value", false, errcode.InvalidField)
				}
				if p["minLength"] == 1.0 {
					refuse(name, " ", false, errcode.MissingField)
				}
			case "integer":
				refuse(name, 1.5, false, errcode.InvalidField)
				lo := p["minimum"].(float64)
				accept(name, lo)
				refuse(name, lo-1, false, errcode.InvalidRange)
				if hi, ok := p["maximum"].(float64); ok {
					accept(name, hi)
					refuse(name, hi+1, false, errcode.InvalidRange)
				}
				if d, ok := p["default"]; ok {
					accept(name, d)
				}
			case "boolean":
				accept(name, true)
				accept(name, false)
				refuse(name, "yes", false, errcode.InvalidField)
			case "array":
				refuse(name, "x", false, errcode.InvalidField)
				items, _ := p["items"].(map[string]any)
				for _, v := range asList(items["enum"]) {
					accept(name, []any{v})
				}
				if items["enum"] != nil {
					refuse(name, []any{"zz-not-a-value"}, false, errcode.InvalidField)
				}
			case "object":
				accept(name, map[string]any{})
				refuse(name, []any{}, false, errcode.InvalidField)
			default:
				t.Errorf("%s.%s: type %v has no contract check", tl.Name, name, p["type"])
			}
		}
	}
	if tools != len(ToolNames()) {
		t.Errorf("checked %d tools", tools)
	}
}
