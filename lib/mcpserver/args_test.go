package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestArgsValidationNamesTheField(t *testing.T) {
	check := func(err error, code errcode.Code, field string) {
		t.Helper()
		e := errcode.As(err)
		if err == nil || e.Code != code || e.Field != field {
			t.Errorf("got %v (field %q), want %s on %q", err, e.Field, code, field)
		}
	}
	_, err := parseArgs(json.RawMessage(`{"query":"x","bogus":1}`), "query")
	check(err, errcode.InvalidField, "bogus")
	_, err = parseArgs(json.RawMessage(`[1]`), "query")
	check(err, errcode.InvalidField, "arguments")

	a, _ := parseArgs(json.RawMessage(`{"query":7,"k":2.5,"index":"nope","flag":"yes","list":"x","empty":"  "}`),
		"query", "k", "index", "flag", "list", "empty", "missing")
	_, err = a.str("query", true)
	check(err, errcode.InvalidField, "query")
	_, err = a.str("missing", true)
	check(err, errcode.MissingField, "missing")
	_, err = a.str("empty", true)
	check(err, errcode.MissingField, "empty")
	_, _, err = a.integer("k", 10, 1, 50)
	check(err, errcode.InvalidField, "k")
	_, err = a.enum("index", "auto", "auto", "text")
	check(err, errcode.InvalidField, "index")
	_, err = a.boolean("flag", false)
	check(err, errcode.InvalidField, "flag")
	_, err = a.strings("list")
	check(err, errcode.InvalidField, "list")

	a, _ = parseArgs(json.RawMessage(`{"k":99}`), "k")
	_, _, err = a.integer("k", 10, 1, 50)
	check(err, errcode.InvalidRange, "k")
	n, set, err := a.integer("absent", 10, 1, 50)
	if n != 10 || set || err != nil {
		t.Errorf("default: %d %v %v", n, set, err)
	}
}

func TestSchemasAreObjects(t *testing.T) {
	s := &Server{}
	for _, td := range s.tools() {
		for name, sch := range map[string]any{"input": td.tool.InputSchema, "output": td.tool.OutputSchema} {
			var m map[string]any
			if err := json.Unmarshal(sch.(json.RawMessage), &m); err != nil || m["type"] != "object" {
				t.Errorf("%s %s schema: %v %v", td.tool.Name, name, err, m["type"])
			}
		}
		if td.tool.Annotations == nil || td.tool.Title == "" {
			t.Errorf("%s lacks title or annotations", td.tool.Name)
		}
	}
}

func TestErrorResultShape(t *testing.T) {
	r := errorResult(&errcode.Error{Code: errcode.RateLimited, Message: "slow down", Retryable: true, RetryAfterMs: 1500})
	b, _ := json.Marshal(r)
	var got struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Error struct {
				Code         string `json:"code"`
				Message      string `json:"message"`
				Retryable    bool   `json:"retryable"`
				RetryAfterMs int64  `json:"retryAfterMs"`
			} `json:"error"`
		} `json:"structuredContent"`
		Content []struct{ Text string } `json:"content"`
	}
	json.Unmarshal(b, &got)
	e := got.StructuredContent.Error
	if !got.IsError || e.Code != "RATE_LIMITED" || !e.Retryable || e.RetryAfterMs != 1500 || got.Content[0].Text != "ERROR: RATE_LIMITED: slow down" {
		t.Errorf("%s", b)
	}
}
