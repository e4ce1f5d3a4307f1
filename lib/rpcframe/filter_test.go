package rpcframe

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestFilterAnswersBadLinesAndPassesGoodOnes: bad lines are answered on
// the answer writer, good ones reach the reader unchanged, in order, and
// the stream survives a line over the limit.
func TestFilterAnswersBadLinesAndPassesGoodOnes(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`garbage`,
		``,
		`{"jsonrpc":"2.0","id":"x","method":"ping","params":{"pad":"` + strings.Repeat("y", 200) + `"}}`,
		`  {"jsonrpc":"2.0","id":2,"method":"ping"}  ` + "\r",
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`, // last line without newline
	}, "\n")
	var answers bytes.Buffer
	got, err := io.ReadAll(Filter(strings.NewReader(in), &answers, 120))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	if string(got) != want {
		t.Errorf("passed through:\n%s\nwant:\n%s", got, want)
	}
	lines := strings.Split(strings.TrimSpace(answers.String()), "\n")
	codes := []int64{-32700, -32600, -32600}
	if len(lines) != len(codes) {
		t.Fatalf("answers:\n%s", answers.String())
	}
	for i, l := range lines {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Error.Code != codes[i] || string(m.ID) != "null" {
			t.Errorf("answer %d = %s, want code %d and id null", i, l, codes[i])
		}
	}
	if !strings.Contains(lines[1], "longer than 120 bytes") {
		t.Errorf("over-long line answer does not name the limit: %s", lines[1])
	}
}

// TestCheckIDs: ids the SDK would change are refused with the id echoed as
// sent; ids it keeps pass.
func TestCheckIDs(t *testing.T) {
	for _, id := range []string{`0`, `-1`, `9007199254740991`, `-9007199254740991`, `"9223372036854775808"`, `""`} {
		if r := Check([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)); r != nil {
			t.Errorf("id %s refused: %v", id, r)
		}
	}
	for _, id := range []string{`9007199254740992`, `9223372036854775808`, `-9223372036854775809`, `1.5`, `1.0`, `1e3`, `-0`} {
		r := Check([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`))
		if r == nil || r.Code != -32600 || string(r.ID) != id || !strings.Contains(r.Message, "string id") {
			t.Errorf("id %s: %+v", id, r)
		}
	}
	if r := Check([]byte(`{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}`)); r != nil {
		t.Errorf("a notification with a null id is still one: %v", r)
	}
	for _, id := range []string{`null`, `{}`, `[1]`, `true`} {
		if r := Check([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)); r == nil || r.ID != nil {
			t.Errorf("id %s: %+v", id, r)
		}
	}
}

// Batches pass only after an initialize asking for a version that has
// them, and only when every message in them is valid.
func TestFilterBatchesByVersion(t *testing.T) {
	init := func(v string) string {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + v + `"}}`
	}
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`
	for _, tc := range []struct {
		lines    []string
		passed   int // lines through
		refusals int
	}{
		{[]string{init("2025-03-26"), batch}, 2, 0},
		{[]string{init("2025-11-25"), batch}, 1, 1},
		{[]string{batch}, 0, 1},
		{[]string{init("2025-03-26"), `[]`, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
			`[{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`}, 1, 3},
	} {
		var answers bytes.Buffer
		got, _ := io.ReadAll(Filter(strings.NewReader(strings.Join(tc.lines, "\n")+"\n"), &answers, 0, "2025-03-26"))
		if n := strings.Count(string(got), "\n"); n != tc.passed || strings.Count(answers.String(), "-32600") != tc.refusals {
			t.Errorf("%v: passed %d lines, answered %q; want %d passed, %d refusals", tc.lines, n, answers.String(), tc.passed, tc.refusals)
		}
	}
}
