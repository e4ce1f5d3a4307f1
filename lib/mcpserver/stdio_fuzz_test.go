package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/hangcheck"
)

// stdioSeeds are lines a broken or hostile stdio client writes.
var stdioSeeds = []string{
	"", "garbage", "{", "}", "[]", "[{}]", "null", "0", `"x"`, "{}", "\xff\xfe{", "\x00", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\x00",
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"method":"no/such"}`, `{"jsonrpc":"2.0","id":7,"result":{}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"../../etc/passwd"}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"dir2mcp.search","arguments":{"query":"alpha","k":1e9}}}`,
	`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"dir2mcp:///%2e%2e/x"}}`,
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}", "\r\n\r\n", "{\"a\":\"\\ud800\"}",
}

const (
	stdioInit        = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	stdioProbe       = `{"jsonrpc":"2.0","id":"probe","method":"ping"}` + "\n"
	stdioProbeAnswer = `"probe"`
)

// FuzzServeIO writes hostile lines into an initialized stdio session (the
// path of `up --stdio`): every line the server writes back is one valid
// JSON-RPC message, and the session survives — a ping after the input is
// answered.
func FuzzServeIO(f *testing.F) {
	for _, s := range stdioSeeds {
		f.Add([]byte(s))
	}
	s := indexedServer(f, map[string]string{"docs/a.md": "alpha bravo\n", "src/b.go": "package b\n"}, nil)
	f.Fuzz(func(t *testing.T, input []byte) {
		defer hangcheck.Arm()()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		served := make(chan error, 1)
		go func() { served <- s.ServeIO(ctx, inR, outW); outW.Close() }()
		go func() {
			inW.Write([]byte(stdioInit))
			inW.Write(input)
			inW.Write([]byte("\n" + stdioProbe))
		}()
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		answered := false
		for !answered && sc.Scan() {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("server wrote a line that is not JSON: %q (input %q)", sc.Text(), input)
			}
			answered = bytes.Equal(m.ID, []byte(stdioProbeAnswer))
		}
		if !answered {
			t.Fatalf("the session ended before answering the ping after %q (serve: %v)", input, <-served)
		}
		inW.Close()
		go io.Copy(io.Discard, outR)
		if err := <-served; err != nil && ctx.Err() == nil {
			t.Logf("ServeIO: %v", err)
		}
	})
}
