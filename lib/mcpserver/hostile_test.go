package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Hostile globs (issue 14, 0f): a glob over the bounds ("**/" x 2000) is
// INVALID_FIELD naming the field in every tool taking one; a many-"**"
// glob within them is answered; a caller that went away stops find, grep
// and list_files with its context's error instead of a result.
func TestHostileGlobsAndCancellation(t *testing.T) {
	files := map[string]string{}
	deep := strings.TrimSuffix(strings.Repeat("a/", 40), "/")
	for i := range 50 {
		files[fmt.Sprintf("%s/f%d.txt", deep, i)] = "alpha beta\n"
	}
	files["b.txt"] = "alpha\n"
	s, cs := newIndexedServer(t, files, nil)
	huge := strings.Repeat("**/", 2000)
	for tool, field := range map[string]string{"dir2mcp.search": "file_glob", "dir2mcp.grep": "glob", "dir2mcp.find": "glob", "dir2mcp.list_files": "glob"} {
		args := map[string]any{field: huge}
		switch tool {
		case "dir2mcp.search":
			args["query"] = "alpha"
		case "dir2mcp.grep":
			args["pattern"] = "alpha"
		}
		r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r.StructuredContent)
		if got := codeOf(t, r); got != "INVALID_FIELD" || !strings.Contains(string(b), `"field":"`+field+`"`) {
			t.Errorf("%s with %s of %d bytes: %q %s", tool, field, len(huge), got, b)
		}
	}
	many := strings.Repeat("**/a/", 12) + "**/f1*.txt"
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.find", Arguments: map[string]any{"glob": many}})
	if err != nil || r.IsError {
		t.Fatalf("find %s: %v %v", many, err, r)
	}
	var out struct{ Total int }
	b, _ := json.Marshal(r.StructuredContent)
	json.Unmarshal(b, &out)
	if out.Total != 11 { // f1.txt, f10..f19.txt
		t.Errorf("find %s: %d files", many, out.Total)
	}

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for name, call := range map[string]struct {
		run  toolFunc
		in   []param
		args string
	}{
		"find":       {s.find, findParams, `{"glob":"**/*.txt"}`},
		"list_files": {s.listFiles, listFilesParams, `{"glob":"**/*.txt"}`},
		"grep":       {s.grep, grepParams, `{"pattern":"alpha"}`},
	} {
		a, err := parseArgs(json.RawMessage(call.args), call.in)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := call.run(gone, a); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", name, err)
		}
	}
}
