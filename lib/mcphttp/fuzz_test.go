package mcphttp

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
)

// fuzzSeeds are JSON-RPC bodies a hostile or broken client sends: not
// JSON, wrong shapes, batches, huge ids, unknown methods, and tool calls,
// resource reads and completions with paths that try to leave the root or
// reach excluded files.
var fuzzSeeds = []string{
	``, `garbage`, `{`, `}`, `[]`, `[{}]`, `null`, `0`, `"x"`, `true`, `{}`, `{"jsonrpc":"2.0"}`, "\xff\xfe{", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\x00",
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, `{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, `{"jsonrpc":"2.0","id":1,"method":"no/such"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	initBody, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"!!"}}`, `{"jsonrpc":"2.0","id":2,"method":"resources/list","params":{"cursor":"eyJ4IjoxfQ"}}`,
	`{"jsonrpc":"2.0","id":2,"method":"resources/templates/list"}`, `{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":{"query":"alpha","k":100000}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":{"query":"","k":-1,"path_prefix":"../"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":"x"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"../outside.txt"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"link_env.txt"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"%2e%2e/outside.txt","start_line":-5,"end_line":1e18}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"docs/a.md","offset":-1,"length":9223372036854775807}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.list_files","arguments":{"path_prefix":".git/","glob":"**/**/**/**/**/"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.grep","arguments":{"pattern":"(a+)+$","path_prefix":"."}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.checksum","arguments":{"rel_path":".ENV"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.diff","arguments":{"rel_path":"docs/a.md","other_rel_path":"tok.txt"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.stats","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.annotate","arguments":{"rel_path":"docs/a.md","note":"x"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.ask","arguments":{"question":"alpha?"}}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"dir2mcp:///docs/a.md"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"dir2mcp:///%2e%2e/outside.txt"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"dir2mcp://host/.env"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"dir2mcp:///link_state/secret.token"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"dir2md\x7f:/F/%2e%2e/x\"}}",
	`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"dir2mcp:///docs.zip!/inner/.env"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"dir2mcp:///{+path}"},"argument":{"name":"path","value":"."}}}`,
	`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"dir2mcp:///{+path}"},"argument":{"name":"path","value":"link_"}}}`,
	`{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"shout"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"nope","arguments":{"a":"b"}}}`,
}

// fuzzRoot is a small served directory with protected files (excluded
// names, links to them, the state directory's token) holding mark, and an
// archive with an excluded member.
func fuzzRoot(tb testing.TB, mark string) string {
	tb.Helper()
	base := tb.TempDir()
	root := filepath.Join(base, "root")
	writeFile(tb, filepath.Join(base, "outside.txt"), mark)
	writeFile(tb, filepath.Join(root, "docs", "a.md"), "# Alpha\n\nalpha bravo charlie in the docs.\n")
	writeFile(tb, filepath.Join(root, "src", "b.go"), "package b\n\n// Bravo returns alpha.\nfunc Bravo() string { return \"alpha\" }\n")
	writeFile(tb, filepath.Join(root, "web", "c.html"), "<html><title>C</title><body><h1>Charlie</h1><p>alpha<br>bravo</p></body></html>")
	for _, rel := range []string{".env", "id_rsa", ".git/config", ".dir2mcp.yaml"} {
		writeFile(tb, filepath.Join(root, rel), mark)
	}
	for name, target := range map[string]string{"link_env.txt": ".env", "link_out.txt": "../outside.txt", "tok.txt": ".dir2mcp/secret.token", "link_state": ".dir2mcp"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			tb.Fatal(err)
		}
	}
	return root
}

// FuzzPOST sends request bodies through the real handler and MCP server
// over a real index, inside an initialized session or as a first contact:
// the answer is never a 5xx, every JSON-RPC message the server writes is
// valid JSON, a request accepted with 200 is answered (a result or an
// error), and no protected file's content reaches the client.
func FuzzPOST(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	var b [16]byte
	rand.Read(b[:])
	mark := "PROTECTED-" + hex.EncodeToString(b[:]) // no input can spell it
	root := fuzzRoot(f, mark)
	s := index(f, root)()
	h := New(s.MCP(), Options{MaxBodyBytes: 1 << 20})
	f.Cleanup(h.Close)
	tok, err := os.ReadFile(filepath.Join(s.Dir.Path, "secret.token"))
	if err == nil && len(tok) > 0 {
		mark = string(tok) // the token too must never be served
	}
	writeFile(f, filepath.Join(s.Dir.Path, "secret.token"), mark)
	session := initSession(f, h)
	f.Fuzz(func(t *testing.T, body []byte, inSession bool) {
		defer hangcheck.Arm()()
		id := ""
		if inSession {
			id = session
		}
		w := rpc(t, h, id, string(body))
		if w.Code == http.StatusNotFound && inSession {
			// A hostile initialize may have evicted the session: open another.
			session = initSession(t, h)
			w = rpc(t, h, session, string(body))
		}
		out := w.Body.String()
		if w.Code >= 500 {
			t.Fatalf("%d for %q: %s", w.Code, body, out)
		}
		if strings.Contains(out, mark) {
			t.Fatalf("protected content served for %q: %s", body, out)
		}
		if w.Code != http.StatusOK {
			return
		}
		var msgs [][]byte
		switch ct := w.Header().Get("Content-Type"); {
		case strings.HasPrefix(ct, "application/json"):
			msgs = append(msgs, w.Body.Bytes())
		case strings.HasPrefix(ct, "text/event-stream"):
			sc := bufio.NewScanner(bytes.NewReader(w.Body.Bytes()))
			sc.Buffer(nil, 8<<20)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					msgs = append(msgs, []byte(data))
				}
			}
		default:
			t.Fatalf("200 with Content-Type %q for %q", ct, body)
		}
		answered := false
		for _, m := range msgs {
			var r struct{ Result, Error json.RawMessage }
			if err := json.Unmarshal(m, &r); err != nil {
				t.Fatalf("invalid JSON in the answer to %q: %s", body, m)
			}
			answered = answered || r.Result != nil || r.Error != nil
		}
		var req struct {
			ID     json.RawMessage
			Method string
		}
		if json.Unmarshal(body, &req) == nil && req.Method != "" && len(req.ID) > 0 && string(req.ID) != "null" && !answered {
			t.Fatalf("request %q accepted with 200 but never answered: %q", body, out)
		}
	})
}
