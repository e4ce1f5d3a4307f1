package mcphttp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/dir2mcp/dir2mcp/lib/x402/x402test"
)

// withHeaders sets hdr on every request before h serves it.
func withHeaders(h http.Handler, hdr map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		h.ServeHTTP(w, r)
	})
}

// postH sends one JSON-RPC body with extra headers.
func postH(t *testing.T, h http.Handler, session, body string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	return rpc(t, withHeaders(h, hdr), session, body)
}

func decodeHeader[T any](t *testing.T, w *httptest.ResponseRecorder, name string) T {
	t.Helper()
	var v T
	raw, err := x402.DecodeHeader(w.Header().Get(name))
	if err != nil || json.Unmarshal(raw, &v) != nil {
		t.Fatalf("%s header %q: %v", name, w.Header().Get(name), err)
	}
	return v
}

var paidFiles = map[string]string{"a.txt": "alpha\n", "docs/b.md": "beta\n"}

// newPaid serves paidFiles with payments in mode.
func newPaid(t *testing.T, mode string, gated ...string) (*paid, *Handler) {
	t.Helper()
	root := t.TempDir()
	for rel, body := range paidFiles {
		writeFile(t, filepath.Join(root, rel), body)
	}
	p := pay(t, index(t, root)(), mode, gated...)
	return p, handler(t, p.s, p.gate)
}

func writeFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPTransport(t *testing.T) {
	p, h := newPaid(t, x402.ModeOn, "dir2mcp.open_file")
	id := initSession(t, h)
	if w := postH(t, h, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil); w.Code != 200 || w.Header().Get(x402.HeaderPaymentRequired) != "" {
		t.Fatalf("tools/list: %d %v", w.Code, w.Header())
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"a.txt"}}}`

	// A call outside a live session is the SDK's to refuse, not the gate's.
	if w := postH(t, h, "no-such-session", call, nil); w.Code != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", w.Code)
	}
	// Unpaid: 402 before the MCP server sees it.
	w := postH(t, h, id, call, nil)
	if w.Code != http.StatusPaymentRequired || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("unpaid: %d %v", w.Code, w.Header())
	}
	pr := decodeHeader[x402.PaymentRequired](t, w, x402.HeaderPaymentRequired)
	if pr.X402Version != 2 || pr.Error != "payment_required" || pr.Accepts[0].PayTo != x402test.PayTo {
		t.Errorf("PAYMENT-REQUIRED = %+v", pr)
	}
	var body struct {
		ID     int `json:"id"`
		Result struct {
			IsError           bool                     `json:"isError"`
			StructuredContent mcpserver.PaymentFailure `json:"structuredContent"`
		} `json:"result"`
	}
	if json.Unmarshal(w.Body.Bytes(), &body) != nil || body.ID != 7 || !body.Result.IsError || body.Result.StructuredContent.Accepts[0].Amount != pr.Accepts[0].Amount {
		t.Errorf("402 body = %s", w.Body)
	}
	if int(p.runs.Load()) != 0 {
		t.Fatal("an unpaid call reached the tool")
	}

	// Paid with PAYMENT-SIGNATURE: 200, PAYMENT-RESPONSE, private caching.
	pay := x402test.Pay(pr.Accepts[0])
	sig, _ := x402.EncodeHeader(json.RawMessage(pay))
	w = postH(t, h, id, call, map[string]string{x402.HeaderPaymentSignature: sig})
	if w.Code != 200 || !strings.Contains(w.Body.String(), "alpha") || !strings.Contains(w.Header().Get("Cache-Control"), "private") {
		t.Fatalf("paid: %d %v %s", w.Code, w.Header(), w.Body)
	}
	if sr := decodeHeader[x402.SettleResponse](t, w, x402.HeaderPaymentResponse); !sr.Success || sr.Transaction != p.fac.Transaction {
		t.Errorf("PAYMENT-RESPONSE = %+v", sr)
	}

	// Replayed: 402 with the reason.
	w = postH(t, h, id, call, map[string]string{x402.HeaderPaymentSignature: sig})
	if w.Code != 402 || decodeHeader[x402.PaymentRequired](t, w, x402.HeaderPaymentRequired).Error != x402.ReasonReplayed {
		t.Errorf("replay: %d %s", w.Code, w.Body)
	}
	// Malformed header: 400.
	w = postH(t, h, id, call, map[string]string{x402.HeaderPaymentSignature: "%%%"})
	if w.Code != 400 || decodeHeader[x402.PaymentRequired](t, w, x402.HeaderPaymentRequired).Error != x402.ReasonInvalidPayload {
		t.Errorf("malformed: %d %s", w.Code, w.Body)
	}
	// Facilitator down: 502, fail closed, nothing ran.
	p.fac.Set(x402test.Down)
	runs := int(p.runs.Load())
	sig2, _ := x402.EncodeHeader(json.RawMessage(x402test.Pay(pr.Accepts[0])))
	w = postH(t, h, id, call, map[string]string{x402.HeaderPaymentSignature: sig2})
	if w.Code != http.StatusBadGateway || int(p.runs.Load()) != runs || !strings.Contains(w.Body.String(), "facilitator_status") {
		t.Errorf("facilitator down: %d %s", w.Code, w.Body)
	}
	// MCP-native over HTTP: the payment in _meta, no header.
	p.fac.Set(x402test.Normal)
	w = postH(t, h, id, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"dir2mcp.open_file","arguments":{"rel_path":"a.txt"},"_meta":{"x402/payment":`+
		string(x402test.Pay(pr.Accepts[0]))+`}}}`, nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"x402/payment-response"`) || w.Header().Get(x402.HeaderPaymentResponse) == "" {
		t.Errorf("MCP-native over HTTP: %d %v %s", w.Code, w.Header(), w.Body)
	}
	// An ungated call carries no x402 header.
	w = postH(t, h, id, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"dir2mcp.list_files","arguments":{}}}`, nil)
	if w.Code != 200 || w.Header().Get(x402.HeaderPaymentResponse) != "" || w.Header().Get(x402.HeaderPaymentRequired) != "" {
		t.Errorf("ungated call: %d %v", w.Code, w.Header())
	}
}

// A JSON-RPC batch (protocol 2025-03-26) holding an unpaid gated call is
// refused whole with 402.
func TestHTTPBatchWithUnpaidCall(t *testing.T) {
	p, h := newPaid(t, x402.ModeRequired)
	w := postH(t, h, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	id := w.Header().Get("Mcp-Session-Id")
	postH(t, h, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{"MCP-Protocol-Version": "2025-03-26"})
	w = postH(t, h, id, `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"dir2mcp.list_files","arguments":{}}}]`,
		map[string]string{"MCP-Protocol-Version": "2025-03-26"})
	var arr []map[string]any
	if w.Code != 402 || json.Unmarshal(w.Body.Bytes(), &arr) != nil || len(arr) != 1 || arr[0]["id"] != 3.0 || int(p.runs.Load()) != 0 {
		t.Errorf("batch: %d %s", w.Code, w.Body)
	}
}

// With payments off the HTTP handler is the free one: the same requests
// get byte-identical answers from a server with payments on whose tools
// are all ungated.
func TestPaymentsOffLeavesHTTPUnchanged(t *testing.T) {
	root := t.TempDir()
	for rel, body := range paidFiles {
		writeFile(t, filepath.Join(root, rel), body)
	}
	servers := index(t, root)
	free, paid := servers(), pay(t, servers(), x402.ModeOn, "dir2mcp.open_file")
	bodies := []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"dir2mcp.list_files","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`,
	}
	var got [2][]string
	for i, h := range []*Handler{handler(t, free, nil), handler(t, paid.s, paid.gate)} {
		id := initSession(t, h)
		for _, b := range bodies {
			w := postH(t, h, id, b, nil)
			hdr := w.Header().Clone()
			hdr.Del("Mcp-Session-Id")
			got[i] = append(got[i], w.Result().Status+" "+headerString(hdr)+"\n"+stripEventIDs(w.Body.String()))
		}
	}
	for i := range bodies {
		if got[0][i] != got[1][i] {
			t.Errorf("request %d differs with payments on:\nfree:\n%s\npaid:\n%s", i, got[0][i], got[1][i])
		}
	}
}

func headerString(h http.Header) string {
	var b strings.Builder
	h.Write(&b)
	return b.String()
}

// stripEventIDs drops SSE id: lines, which name random stream ids.
func stripEventIDs(s string) string {
	var out []string
	for _, ln := range strings.Split(s, "\n") {
		if !strings.HasPrefix(ln, "id:") {
			out = append(out, ln)
		}
	}
	return strings.Join(out, "\n")
}
