package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path of the controls (a result served as encoded) is taken only
// when the general path would change nothing: every credential is masked
// whatever JSON escaping surrounds it, a masked span shown is counted, and
// a path outside the scope is withheld.
func TestSecureResultFastPathNeverLenient(t *testing.T) {
	s := indexedServer(t, map[string]string{"a.txt": "x\n"}, nil)
	s.MCP()
	scoped := corpus.WithScope(context.Background(), &corpus.Scope{PathPrefixes: []string{"src/"}})
	type hit struct {
		RelPath string `json:"rel_path"`
		Snippet string `json:"snippet"`
	}
	type out struct {
		Hits  []hit          `json:"hits"`
		Extra map[string]any `json:"extra,omitempty"`
	}
	for _, tc := range []struct {
		name    string
		v       out
		want    int // redactions; -1 = withheld
		secrets []string
	}{
		{"clean", out{Hits: []hit{{"src/a.go", "func a() {}\n<b>&</b> \"quoted\""}}}, 0, nil},
		{"key in an escaped string", out{Hits: []hit{{"src/a.go", "<p>\n\t\"x\" key " + fakeKey + "</p>"}}}, 1, []string{fakeKey}},
		{"password after a newline", out{Hits: []hit{{"src/a.go", "a\npassword=hunter2xyz\n"}}}, 1, []string{"hunter2xyz"}},
		{"key in a nested map", out{Hits: []hit{{"src/a.go", "x"}}, Extra: map[string]any{"deep": []any{map[string]any{"v": "key " + fakeKey}}}}, 1, []string{fakeKey}},
		{"masked when indexed", out{Hits: []hit{{"src/a.go", "password=[REDACTED]"}}}, 1, nil},
		{"path outside the scope", out{Hits: []hit{{"docs/b.md", "x"}}}, -1, nil},
		{"path with escapes outside the scope", out{Hits: []hit{{"docs/<b>.md", "x"}}}, -1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "x"}}, StructuredContent: tc.v}
			if n := s.secureResult(scoped, res); n != tc.want {
				t.Fatalf("secureResult = %d, want %d", n, tc.want)
			}
			if tc.want < 0 {
				return
			}
			b, _ := json.Marshal(res.StructuredContent)
			var back out
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			for _, sec := range tc.secrets {
				if strings.Contains(string(b), sec) || strings.Contains(back.Hits[0].Snippet, sec) {
					t.Errorf("%s served: %s", sec, b)
				}
			}
			if _, raw := res.StructuredContent.(json.RawMessage); raw != (tc.want == 0) {
				t.Errorf("served as encoded = %v for %d redactions", raw, tc.want)
			}
		})
	}
}

// unescape reads back every string json.Marshal writes, and JSON escapes
// it never writes (surrogate pairs, \/).
func TestUnescapeAgreesWithEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "a\nb\tc\r\"q\"\\", "<b>&amp;</b>", "\u2028\u2029", "\x00\x01\x1f", "Straße 日本 🎉", "bad \xff utf8"}
	for i := 0; i < 300; i++ {
		r := []rune{}
		for j := 0; j < i%17; j++ {
			r = append(r, rune((i*7919+j*104729)%0x1FFFF))
		}
		strs = append(strs, string(r))
	}
	check := func(raw []byte) {
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got := unescape(nil, raw[1:len(raw)-1])
		if got == nil || string(got) != want {
			t.Errorf("unescape(%s) = %q, want %q", raw, got, want)
		}
	}
	for _, s := range strs {
		raw, _ := json.Marshal(s)
		check(raw)
	}
	check([]byte(`"\ud83c\udf89 \/ \u00e9 \uD800 x"`))
	if unescape(nil, []byte(`bad \q`)) != nil {
		t.Error("an invalid escape was accepted")
	}
}
