package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// ServeIO answers a bad line and goes on; a 2025-03-26 client may still
// send a batch and gets one array answer.
func TestServeIOBadLineThenBatch(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- (&Server{}).ServeIO(ctx, inR, outW) }()
	lines := bufio.NewScanner(outR)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() string {
		got := make(chan string, 1)
		go func() {
			if lines.Scan() {
				got <- lines.Text()
			}
			close(got)
		}()
		select {
		case l := <-got:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no answer")
		}
		return ""
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if l := recv(); !strings.Contains(l, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,`)
	if l := recv(); !strings.Contains(l, `"code":-32700`) || !strings.Contains(l, `"id":null`) {
		t.Errorf("bad line: %s", l)
	}
	send(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	var batch []map[string]json.RawMessage
	if l := recv(); json.Unmarshal([]byte(l), &batch) != nil || len(batch) != 2 {
		t.Errorf("batch answer: %s", l)
	}
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeIO after EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("ServeIO did not end at EOF")
	}
}
