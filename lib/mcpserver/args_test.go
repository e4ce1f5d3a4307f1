package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

func TestArgsValidationNamesTheField(t *testing.T) {
	check := func(raw string, ps []param, code errcode.Code, field string) {
		t.Helper()
		_, err := parseArgs(json.RawMessage(raw), ps)
		e := errcode.As(err)
		if err == nil || e.Code != code || e.Field != field {
			t.Errorf("%s: got %v (field %q), want %s on %q", raw, err, e.Field, code, field)
		}
	}
	q := []param{str("query", "q").need()}
	check(`{"query":"x","bogus":1}`, q, errcode.InvalidField, "bogus")
	check(`[1]`, q, errcode.InvalidField, "arguments")
	if _, err := parseArgs(json.RawMessage(`{}`), nil); err != nil {
		t.Errorf("no arguments for a tool without params: %v", err)
	}
	check(`{"x":1}`, nil, errcode.InvalidField, "x")
	check(`{"query":7}`, q, errcode.InvalidField, "query")
	check(`{}`, q, errcode.MissingField, "query")
	check(`{"query":null}`, q, errcode.MissingField, "query")
	check(`{"query":"  "}`, q, errcode.MissingField, "query")
	k := []param{integer("k", "k", 1, 50)}
	check(`{"k":2.5}`, k, errcode.InvalidField, "k")
	check(`{"k":"3"}`, k, errcode.InvalidField, "k")
	check(`{"k":0}`, k, errcode.InvalidRange, "k")
	check(`{"k":51}`, k, errcode.InvalidRange, "k")
	check(`{"n":3000000000}`, []param{atLeast("n", "n", 1, maxLine)}, errcode.InvalidRange, "n")
	check(`{"index":"nope"}`, []param{oneOf("index", "i", []string{"auto", "text"}, "auto")}, errcode.InvalidField, "index")
	check(`{"flag":"yes"}`, []param{boolean("flag", "f")}, errcode.InvalidField, "flag")
	check(`{"list":"x"}`, []param{strList("list", "l")}, errcode.InvalidField, "list")
	check(`{"list":["md","zz"]}`, []param{strList("list", "l", "md", "pdf")}, errcode.InvalidField, "list")
	check(`{"o":[]}`, []param{object("o", "o")}, errcode.InvalidField, "o")
}

// Absent arguments read as their schema defaults; present ones as given.
func TestArgsDefaults(t *testing.T) {
	ps := []param{
		oneOf("index", "i", []string{"auto", "text"}, "auto"), integer("limit", "l", 1, 10).withDefault(5),
		atLeast("start", "s", 1, maxLine), boolean("ts", "t").withDefault(true), str("s", "s"),
	}
	a, err := parseArgs(json.RawMessage(`{"index":""}`), ps)
	if err != nil {
		t.Fatal(err)
	}
	if a.str("index") != "auto" || a.integer("limit") != 5 || a.integer("start") != 0 || a.has("start") || !a.boolean("ts") || a.str("s") != "" {
		t.Errorf("defaults: %q %d %d %v %v", a.str("index"), a.integer("limit"), a.integer("start"), a.has("start"), a.boolean("ts"))
	}
	a, _ = parseArgs(json.RawMessage(`{"index":"text","limit":9,"start":3,"ts":false,"s":"x"}`), ps)
	if a.str("index") != "text" || a.integer("limit") != 9 || a.integer("start") != 3 || !a.has("start") || a.boolean("ts") || a.str("s") != "x" {
		t.Error("given values not read back")
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
