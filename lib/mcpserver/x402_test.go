package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/dir2mcp/dir2mcp/lib/x402/x402test"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testNetwork = "eip155:84532"

var paidFiles = map[string]string{"a.txt": "alpha\n", "docs/b.md": "beta\n"}

// paidServer is an indexed Server with payments over a fake facilitator,
// recording when each tool call reached the tools.
type paidServer struct {
	t      *testing.T
	s      *Server
	cs     *mcp.ClientSession
	fac    *x402test.Facilitator
	gate   *x402.Gate
	events *bytes.Buffer

	mu    sync.Mutex
	ran   []time.Time // tools/call reaching the tool handlers
	names []string
}

// newPaidServer serves two files with x402 in mode; in mode on, gated
// names the charged tools.
func newPaidServer(t *testing.T, mode string, gated ...string) *paidServer {
	t.Helper()
	s, cs := newIndexedServer(t, paidFiles, nil)
	p := &paidServer{t: t, s: s, cs: cs, fac: x402test.New(testNetwork), events: &bytes.Buffer{}}
	t.Cleanup(p.fac.Close)
	// Inside the payment middleware: sees only calls that reach the tools.
	s.MCP().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" {
				p.mu.Lock()
				p.ran = append(p.ran, time.Now())
				p.names = append(p.names, req.(*mcp.CallToolRequest).Params.Name)
				p.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	g, err := x402.Open(x402.Options{Config: p.fac.Config(mode, gated...), MCPPath: "/mcp", Dir: s.Dir, Events: events.NewJSON(p.events)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if err := s.EnablePayments(g); err != nil {
		t.Fatal(err)
	}
	p.gate = g
	return p
}

func (p *paidServer) toolRuns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ran)
}

// requirements is what the gate asks for a call of tool.
func (p *paidServer) requirements(tool string) x402.PaymentRequirements {
	return p.gate.Require(tool, "test").Required.Accepts[0]
}

// failureOf decodes the payment failure of a tool result.
func failureOf(t *testing.T, res *mcp.CallToolResult) PaymentFailure {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a payment failure, got success %+v", res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var f PaymentFailure
	if err := json.Unmarshal(b, &f); err != nil || f.X402Version != 2 || len(f.Accepts) != 1 {
		t.Fatalf("structuredContent %s is not a PaymentRequired", b)
	}
	return f
}

func TestMCPNativePaidCall(t *testing.T) {
	p := newPaidServer(t, x402.ModeRequired)
	ctx := context.Background()

	// Lifecycle, listing and resources are never gated.
	if _, err := p.cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.cs.ListResources(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.cs.ListPrompts(ctx, nil); err != nil {
		t.Fatal(err)
	}

	// Unpaid: the PaymentRequired tool result, no tool work, no facilitator.
	args := map[string]any{"path_prefix": "docs/"}
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.list_files", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	f := failureOf(t, res)
	if f.Error != "payment_required" || f.Detail.Code != "UNAUTHORIZED" || !f.Detail.Retryable || f.Accepts[0].Amount != "1000" ||
		f.Resource.URL != "mcp://tool/dir2mcp.list_files" {
		t.Errorf("payment required = %+v", f)
	}
	var wrapper map[string]struct {
		Code    int                  `json:"code"`
		Message string               `json:"message"`
		Data    x402.PaymentRequired `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &wrapper); err != nil ||
		wrapper[x402.MetaError].Code != 402 || wrapper[x402.MetaError].Data.X402Version != 2 ||
		!strings.HasPrefix(wrapper[x402.MetaError].Message, "UNAUTHORIZED: payment required") {
		t.Errorf("content[0].text = %s", res.Content[0].(*mcp.TextContent).Text)
	}
	if p.toolRuns() != 0 || len(p.fac.Calls()) != 0 {
		t.Fatalf("unpaid call reached the tool (%d) or the facilitator (%v)", p.toolRuns(), p.fac.Ops())
	}

	// Paid in _meta: verify → tool → settle, result with the settlement.
	pay := x402test.Pay(f.Accepts[0])
	var meta map[string]any
	json.Unmarshal(pay, &meta)
	res, err = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.list_files", Arguments: args, Meta: mcp.Meta{x402.MetaPayment: meta}})
	if err != nil || res.IsError {
		t.Fatalf("paid call: %v %+v", err, res)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "docs/b.md") {
		t.Errorf("paid call result lacks the listing: %+v", res.Content)
	}
	b, _ := json.Marshal(res.Meta[x402.MetaPaymentResponse])
	var sr x402.SettleResponse
	if json.Unmarshal(b, &sr) != nil || !sr.Success || sr.Transaction != p.fac.Transaction || sr.Network != testNetwork || sr.Payer != x402test.Payer {
		t.Errorf("_meta[x402/payment-response] = %s", b)
	}
	calls := p.fac.Calls()
	if len(calls) != 2 || calls[0].Op != "verify" || calls[1].Op != "settle" || p.toolRuns() != 1 {
		t.Fatalf("facilitator calls %v, tool runs %d", p.fac.Ops(), p.toolRuns())
	}
	if ran := p.ran[0]; !(calls[0].At.Before(ran) && ran.Before(calls[1].At)) {
		t.Errorf("order: verify %v, tool %v, settle %v; want verify < tool < settle", calls[0].At, ran, calls[1].At)
	}

	// The same payment cannot buy a second call.
	res, _ = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.list_files", Arguments: args, Meta: mcp.Meta{x402.MetaPayment: meta}})
	if f := failureOf(t, res); f.Error != x402.ReasonReplayed || f.Detail.Stage != x402.StageReplay || f.Detail.Retryable {
		t.Errorf("replay = %+v", f)
	}
	if p.toolRuns() != 1 || p.fac.Count("verify") != 1 {
		t.Errorf("replay reached the tool (%d runs) or the facilitator (%v)", p.toolRuns(), p.fac.Ops())
	}
	ev := p.events.String()
	for _, name := range []string{x402.EvPaymentRequired, x402.EvPaymentVerified, x402.EvPaymentSettled, x402.EvPaymentFailed} {
		if !strings.Contains(ev, `"event":"`+name+`"`) {
			t.Errorf("no %s event in %s", name, ev)
		}
	}
	if sig := x402test.Signature(pay); strings.Contains(ev, sig[2:]) {
		t.Error("events carry the payment signature")
	}
}

func TestToolFailureIsNotCharged(t *testing.T) {
	p := newPaidServer(t, x402.ModeRequired)
	ctx := context.Background()
	pay := x402test.Pay(p.requirements("dir2mcp.open_file"))
	var meta map[string]any
	json.Unmarshal(pay, &meta)
	res, err := p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{"rel_path": "nope.txt"},
		Meta: mcp.Meta{x402.MetaPayment: meta}})
	if err != nil || !res.IsError || res.Meta[x402.MetaPaymentResponse] != nil {
		t.Fatalf("failed tool: %v %+v", err, res)
	}
	if te, ok := res.StructuredContent.(map[string]any)["error"].(map[string]any); !ok || te["code"] != "FILE_NOT_FOUND" {
		t.Errorf("the tool's own error must come back: %+v", res.StructuredContent)
	}
	if p.fac.Count("settle") != 0 {
		t.Fatal("a failed tool call was settled")
	}
	// The unspent payment still pays for a good call.
	res, err = p.cs.CallTool(ctx, &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{"rel_path": "a.txt"},
		Meta: mcp.Meta{x402.MetaPayment: meta}})
	if err != nil || res.IsError || res.Meta[x402.MetaPaymentResponse] == nil {
		t.Fatalf("reusing the unspent payment: %v %+v", err, res)
	}
}

func TestSettlementFailureWithholdsTheResult(t *testing.T) {
	p := newPaidServer(t, x402.ModeRequired)
	p.fac.Set(x402test.RejectSettle)
	pay := x402test.Pay(p.requirements("dir2mcp.open_file"))
	var meta map[string]any
	json.Unmarshal(pay, &meta)
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.open_file",
		Arguments: map[string]any{"rel_path": "a.txt"}, Meta: mcp.Meta{x402.MetaPayment: meta}})
	if err != nil {
		t.Fatal(err)
	}
	f := failureOf(t, res)
	if p.toolRuns() != 1 || f.Settlement == nil || f.Settlement.Success || f.Settlement.ErrorReason != "insufficient_funds" || f.Detail.Stage != x402.StageSettle {
		t.Fatalf("settlement failure = %+v (tool runs %d)", f, p.toolRuns())
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), "alpha") {
		t.Errorf("the unpaid result leaked: %s", b)
	}
}

func TestModeOnGatesOnlyNamedTools(t *testing.T) {
	p := newPaidServer(t, x402.ModeOn, "dir2mcp.open_file")
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.list_files", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Meta != nil {
		t.Fatalf("ungated call: %v %+v", err, res)
	}
	res, _ = p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "dir2mcp.open_file", Arguments: map[string]any{"rel_path": "a.txt"}})
	if f := failureOf(t, res); f.Error != "payment_required" {
		t.Errorf("gated call: %+v", f)
	}
	if len(p.fac.Calls()) != 0 {
		t.Errorf("facilitator called: %v", p.fac.Ops())
	}
}
