package mcphttp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// paymentHTTP speaks the x402 HTTP transport in front of the MCP handler
// next, for requests in a live session (session reports whether the SDK
// knows an Mcp-Session-Id). It reads the JSON-RPC body (up to maxBody; larger bodies go to the
// SDK, which refuses them) and:
//   - a gated tools/call with no payment (no PAYMENT-SIGNATURE header, no
//     params._meta["x402/payment"]) gets 402 with PAYMENT-REQUIRED and
//     Cache-Control: no-store before the MCP server sees it, so no tool
//     work happens; the body is the JSON-RPC response carrying the MCP
//     transport's payment-required tool result, for clients that read
//     bodies rather than headers. A batch holding such a call is refused
//     whole;
//   - a paid gated call is served with its response held back until the
//     call is settled, then sent with PAYMENT-RESPONSE (and Cache-Control
//     private) on success, or with the failure's status (402, 400, 502)
//     and PAYMENT-REQUIRED (plus PAYMENT-RESPONSE after a failed
//     settlement);
//   - anything else passes through untouched.
//
// The paid flow itself (verify, run, settle) is the payment middleware's;
// this layer only maps it onto HTTP.
func paymentHTTP(g *x402.Gate, maxBody int64, session func(id string) bool, next http.Handler) http.Handler {
	if maxBody <= 0 {
		maxBody = mcp.DefaultMaxRequestBodyBytes
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only calls in a session are the gate's: the SDK answers the rest
		// (400 without a session, 404 for an unknown one).
		id := r.Header.Get("Mcp-Session-Id")
		if r.Method != http.MethodPost || id == "" {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := peekBody(r, maxBody)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		calls, batch := gatedCalls(body, g)
		if len(calls) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		header := r.Header.Get(x402.HeaderPaymentSignature) != ""
		for _, c := range calls {
			if !c.paid && !header {
				if !session(id) {
					break
				}
				writePaymentRequired(w, g.Require(c.name, "http"), c.id, batch)
				return
			}
		}
		held := &heldResponse{header: http.Header{}}
		next.ServeHTTP(held, r)
		held.release(w, calls)
	})
}

// gatedCall is a gated tools/call found in a request body.
type gatedCall struct {
	id   json.RawMessage
	name string
	paid bool // carries params._meta["x402/payment"]
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string                     `json:"name"`
		Meta map[string]json.RawMessage `json:"_meta"`
	} `json:"params"`
}

// gatedCalls finds the gated tools/call requests of a JSON-RPC body (one
// message or a batch). A body that does not decode is left to the SDK.
func gatedCalls(body []byte, g *x402.Gate) (calls []gatedCall, batch bool) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	var msgs []rpcRequest
	if batch = len(trimmed) > 0 && trimmed[0] == '['; batch {
		if json.Unmarshal(trimmed, &msgs) != nil {
			return nil, batch
		}
	} else {
		var m rpcRequest
		if json.Unmarshal(trimmed, &m) != nil {
			return nil, false
		}
		msgs = []rpcRequest{m}
	}
	for _, m := range msgs {
		if m.Method != "tools/call" || len(m.ID) == 0 || !g.Gated(m.Params.Name) {
			continue
		}
		p, ok := m.Params.Meta[x402.MetaPayment]
		calls = append(calls, gatedCall{id: m.ID, name: m.Params.Name, paid: ok && string(p) != "null"})
	}
	return calls, batch
}

// peekBody reads the request body (at most limit bytes) and puts it back
// for the next handler. It reports false when the body is larger than
// limit or unreadable.
func peekBody(r *http.Request, limit int64) ([]byte, bool) {
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	return b, err == nil && int64(len(b)) <= limit
}

// writePaymentRequired answers an unpaid gated call: status 402,
// PAYMENT-REQUIRED, Cache-Control: no-store, and the JSON-RPC response
// with the payment-required tool result.
func writePaymentRequired(w http.ResponseWriter, f *x402.Failure, id json.RawMessage, batch bool) {
	if hdr, err := x402.EncodeHeader(f.Required); err == nil {
		w.Header().Set(x402.HeaderPaymentRequired, hdr)
	}
	w.Header().Set("Cache-Control", "no-store")
	resp := map[string]any{"jsonrpc": "2.0", "id": id, "result": mcpserver.PaymentResult(f)}
	var v any = resp
	if batch {
		v = []any{resp}
	}
	writeJSON(w, f.HTTPStatus(), v)
}

// heldResponse buffers a response so headers can be added once the paid
// call has settled (or failed). Flush is a no-op: nothing reaches the
// client before settlement.
type heldResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (h *heldResponse) Header() http.Header { return h.header }

func (h *heldResponse) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldResponse) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}

func (h *heldResponse) Flush() {}

// release sends the held response with the x402 headers of the first
// gated call's outcome.
func (h *heldResponse) release(w http.ResponseWriter, calls []gatedCall) {
	status := h.status
	if status == 0 {
		status = http.StatusOK
	}
	for k, v := range h.header {
		w.Header()[k] = v
	}
	if status == http.StatusOK {
		if o := findOutcome(h.body.Bytes(), h.header.Get("Content-Type"), calls); o != nil {
			if o.failure != nil {
				status = o.failure.Detail.HTTPStatus()
				if hdr, err := x402.EncodeHeader(o.failure.PaymentRequired); err == nil {
					w.Header().Set(x402.HeaderPaymentRequired, hdr)
				}
				if o.failure.Settlement != nil {
					setPaymentResponse(w, o.failure.Settlement)
				}
				w.Header().Set("Cache-Control", "no-store")
			} else {
				setPaymentResponse(w, o.settled)
				w.Header().Set("Cache-Control", privateCache(w.Header().Get("Cache-Control")))
			}
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write(h.body.Bytes())
}

func setPaymentResponse(w http.ResponseWriter, s *x402.SettleResponse) {
	if hdr, err := x402.EncodeHeader(s); err == nil {
		w.Header().Set(x402.HeaderPaymentResponse, hdr)
	}
}

// privateCache adds the private directive to a Cache-Control value:
// settlement metadata is per payer and must not sit in shared caches.
func privateCache(v string) string {
	for _, d := range strings.Split(v, ",") {
		if strings.EqualFold(strings.TrimSpace(d), "private") {
			return v
		}
	}
	if v == "" {
		return "private"
	}
	return v + ", private"
}

// outcome is the payment outcome of a gated call in a response.
type outcome struct {
	settled *x402.SettleResponse
	failure *mcpserver.PaymentFailure
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Meta              struct {
			PaymentResponse *x402.SettleResponse `json:"x402/payment-response"`
		} `json:"_meta"`
	} `json:"result"`
}

// findOutcome reads the JSON-RPC responses of a held body (JSON or SSE)
// and returns the payment outcome of the first gated call that has one.
func findOutcome(body []byte, contentType string, calls []gatedCall) *outcome {
	var msgs [][]byte
	if strings.HasPrefix(contentType, "text/event-stream") {
		msgs = sseData(body)
	} else {
		msgs = [][]byte{body}
	}
	want := map[string]bool{}
	for _, c := range calls {
		want[string(c.id)] = true
	}
	for _, m := range msgs {
		var resps []rpcResponse
		if t := bytes.TrimLeft(m, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			if json.Unmarshal(t, &resps) != nil {
				continue
			}
		} else {
			var r rpcResponse
			if json.Unmarshal(t, &r) != nil {
				continue
			}
			resps = []rpcResponse{r}
		}
		for _, r := range resps {
			if r.Result == nil || !want[string(r.ID)] {
				continue
			}
			if r.Result.IsError {
				var f mcpserver.PaymentFailure
				if json.Unmarshal(r.Result.StructuredContent, &f) == nil && f.X402Version != 0 && f.Detail.Code != "" {
					return &outcome{failure: &f}
				}
				continue
			}
			if s := r.Result.Meta.PaymentResponse; s != nil {
				return &outcome{settled: s}
			}
		}
	}
	return nil
}

// sseData returns the data of each event of a text/event-stream body.
func sseData(body []byte) [][]byte {
	var out [][]byte
	var cur []byte
	has := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), len(body)+1)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if has {
				out = append(out, cur)
			}
			cur, has = nil, false
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if has {
				cur = append(cur, '\n')
			}
			cur, has = append(cur, d...), true
		}
	}
	if has {
		out = append(out, cur)
	}
	return out
}
