package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/dir2mcp/dir2mcp/lib/x402/x402test"
)

const (
	x402Network = "eip155:84532" // Base Sepolia: its USDC is the default asset
	x402PayTo   = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	x402USDC    = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
)

// x402Config is an x402 section paying to x402PayTo through fac in mode;
// toolsCall adds lines under route_policy.tools_call.
func x402Config(fac *x402test.Facilitator, mode, toolsCall string) string {
	return "x402:\n  mode: " + mode + "\n  facilitator_url: " + fac.URL + "\n  facilitator_timeout: 1s\n" +
		"  resource_base_url: https://docs.example.com\n  route_policy:\n    tools_call:\n" +
		"      network: \"" + x402Network + "\"\n      pay_to: \"" + x402PayTo + "\"\n" + toolsCall
}

// paidResult is a tools/call result as the x402 flows return it.
type paidResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
	Meta map[string]json.RawMessage `json:"_meta"`
}

// paymentFailure is the structuredContent of a payment failure.
type paymentFailure struct {
	x402.PaymentRequired
	Settlement *x402.SettleResponse `json:"x402/payment-response"`
	Detail     x402.Detail          `json:"dir2mcp/error"`
}

// resultOf decodes the JSON-RPC result in a body (JSON or SSE).
func resultOf(t *testing.T, raw []byte) paidResult {
	t.Helper()
	data := raw
	if i := bytes.LastIndex(raw, []byte("data:")); i >= 0 {
		data = raw[i+5:]
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			data = data[:j]
		}
	}
	var r struct {
		Result *paidResult `json:"result"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &r); err != nil || r.Result == nil {
		t.Fatalf("no JSON-RPC result in %q: %v", raw, err)
	}
	return *r.Result
}

func (r paidResult) failure(t *testing.T) paymentFailure {
	t.Helper()
	var f paymentFailure
	if !r.IsError || json.Unmarshal(r.StructuredContent, &f) != nil || f.X402Version != 2 {
		t.Fatalf("not a payment failure: %+v", r)
	}
	return f
}

func (r paidResult) settlement(t *testing.T) x402.SettleResponse {
	t.Helper()
	var s x402.SettleResponse
	if r.IsError || json.Unmarshal(r.Meta[x402.MetaPaymentResponse], &s) != nil || !s.Success {
		t.Fatalf("no settlement in result: %+v", r)
	}
	return s
}

// header decodes an x402 header of resp into v.
func header(t *testing.T, resp *http.Response, name string, v any) {
	t.Helper()
	raw, err := x402.DecodeHeader(resp.Header.Get(name))
	if err != nil || json.Unmarshal(raw, v) != nil {
		t.Fatalf("%s header %q: %v", name, resp.Header.Get(name), err)
	}
}

// signatureHeader encodes a payment as a PAYMENT-SIGNATURE value.
func signatureHeader(pay json.RawMessage) string {
	s, _ := x402.EncodeHeader(pay)
	return s
}

// paymentEvents returns the payment_* events among NDJSON lines.
func paymentEvents(lines string) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(lines))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var ev struct {
			Event string         `json:"event"`
			Data  map[string]any `json:"data"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && strings.HasPrefix(ev.Event, "payment_") {
			ev.Data["event"] = ev.Event
			out = append(out, ev.Data)
		}
	}
	return out
}

// ledger reads payments/settlement.log of a root's state dir.
func ledger(t *testing.T, dir string) []x402.Entry {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".dir2mcp", "payments", "settlement.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []x402.Entry
	for _, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e x402.Entry
		if err := json.Unmarshal([]byte(ln), &e); err != nil {
			t.Fatalf("settlement.log line %q: %v", ln, err)
		}
		out = append(out, e)
	}
	return out
}

// noLeak fails if any of the payments' signatures appears in the given
// texts or in any file of the state dir.
func noLeak(t *testing.T, dir string, texts map[string]string, pays ...json.RawMessage) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, ".dir2mcp", "*"))
	more, _ := filepath.Glob(filepath.Join(dir, ".dir2mcp", "payments", "*"))
	for _, f := range append(files, more...) {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && !strings.HasSuffix(f, ".sqlite") && !strings.Contains(f, ".hnsw") {
			b, _ := os.ReadFile(f)
			texts[f] = string(b)
		}
	}
	for _, pay := range pays {
		sig := strings.TrimPrefix(x402test.Signature(pay), "0x")
		for name, s := range texts {
			if strings.Contains(strings.ToLower(s), strings.ToLower(sig)) {
				t.Errorf("%s carries a payment signature", name)
			}
		}
	}
}

// stdioClient drives `dir2mcp up --stdio` over its stdin/stdout.
type stdioClient struct {
	t         *testing.T
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	stderr    *syncBuffer
	responses chan map[string]json.RawMessage
	id        int
}

func startStdio(t *testing.T, args ...string) *stdioClient {
	t.Helper()
	c := &stdioClient{t: t, cmd: exec.Command(bin("dir2mcp"), args...), stderr: &syncBuffer{}, responses: make(chan map[string]json.RawMessage, 64)}
	c.stdin, _ = c.cmd.StdinPipe()
	stdout, _ := c.cmd.StdoutPipe()
	c.cmd.Stderr = c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.stdin.Close(); c.cmd.Process.Kill(); c.cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["id"] != nil {
				c.responses <- m
			}
		}
		close(c.responses)
	}()
	return c
}

// call sends a request and returns its result.
func (c *stdioClient) call(method string, params any) json.RawMessage {
	c.t.Helper()
	c.id++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	io.WriteString(c.stdin, string(msg)+"\n")
	select {
	case m, ok := <-c.responses:
		if !ok || m["result"] == nil {
			c.t.Fatalf("%s: %v; stderr:\n%s", method, m, c.stderr.String())
		}
		return m["result"]
	case <-time.After(30 * time.Second):
		c.t.Fatalf("%s: no response; stderr:\n%s", method, c.stderr.String())
	}
	return nil
}

func (c *stdioClient) notify(method string) {
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	io.WriteString(c.stdin, string(msg)+"\n")
}

// execDir2mcp prepares the dir2mcp binary with args and extra env.
func execDir2mcp(args, env []string) *exec.Cmd {
	cmd := exec.Command(bin("dir2mcp"), args...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// firstDiff shows where a and b first differ ("" when equal).
func firstDiff(a, b string) string {
	if a == b {
		return ""
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("at byte %d:\n  %q\nvs\n  %q", i, a[from:min(i+80, len(a))], b[from:min(i+80, len(b))])
}
