package x402_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/dir2mcp/dir2mcp/lib/x402/x402test"
)

const network = "eip155:84532"

var tools = []x402.Tool{{Name: "dir2mcp.search", Title: "Search"}, {Name: "dir2mcp.ask", Title: "Ask"}}

// fixture is a Gate in mode on (ask paid) over a fake facilitator.
type fixture struct {
	t      *testing.T
	fac    *x402test.Facilitator
	dir    state.Dir
	cfg    config.X402Config
	events *bytes.Buffer
	gate   *x402.Gate
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, fac: x402test.New(network), dir: state.Dir{Path: t.TempDir()}, events: &bytes.Buffer{}}
	t.Cleanup(f.fac.Close)
	c := config.Default().X402
	c.Mode, c.FacilitatorURL = x402.ModeOn, f.fac.URL
	c.FacilitatorTimeout = config.Duration(500 * time.Millisecond)
	c.RoutePolicy.ToolsCall.Network = network
	c.RoutePolicy.ToolsCall.PayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"
	c.RoutePolicy.ToolsCall.Tools = []string{"dir2mcp.ask"}
	f.cfg = c
	f.open()
	return f
}

func (f *fixture) open() {
	f.t.Helper()
	g, err := x402.Open(x402.Options{Config: f.cfg, MCPPath: "/mcp", Dir: f.dir, Events: events.NewJSON(f.events)})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := g.Bind(tools); err != nil {
		f.t.Fatal(err)
	}
	f.gate = g
	f.t.Cleanup(func() { g.Close() })
}

func (f *fixture) pay() json.RawMessage {
	pr := f.gate.Require("dir2mcp.ask", "test")
	return x402test.Pay(pr.Required.Accepts[0])
}

// eventNames lists the payment events emitted so far.
func (f *fixture) eventNames() []string {
	var out []string
	for _, ln := range strings.Split(strings.TrimSpace(f.events.String()), "\n") {
		var ev record.Event
		if json.Unmarshal([]byte(ln), &ev) == nil && strings.HasPrefix(ev.Event, "payment_") {
			out = append(out, ev.Event)
		}
	}
	return out
}

func (f *fixture) ledger() []x402.Entry {
	b, _ := os.ReadFile(f.dir.Payments(state.SettlementLog))
	var out []x402.Entry
	for _, ln := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e x402.Entry
		if json.Unmarshal([]byte(ln), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

func TestGatePaidCallVerifyThenSettle(t *testing.T) {
	f := newFixture(t)
	if f.gate.Gated("dir2mcp.search") || !f.gate.Gated("dir2mcp.ask") {
		t.Fatal("mode on must gate only dir2mcp.ask")
	}
	req := f.gate.Require("dir2mcp.ask", "test")
	if req.Stage != x402.StageRequired || req.Err.Code != errcode.Unauthorized || !req.Err.Retryable || req.HTTPStatus() != 402 || f.fac.Count("verify") != 0 {
		t.Fatalf("require = %+v", req)
	}
	pay := x402test.Pay(req.Required.Accepts[0])
	tk, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test")
	if fail != nil {
		t.Fatalf("authorize: %v", fail)
	}
	if tk.Payer() != x402test.Payer || f.fac.Count("verify") != 1 || f.fac.Count("settle") != 0 {
		t.Fatalf("after authorize: payer %q, calls %v", tk.Payer(), f.fac.Ops())
	}
	sr, fail := f.gate.Settle(context.Background(), tk)
	if fail != nil || !sr.Success || sr.Transaction != f.fac.Transaction || sr.Network != network {
		t.Fatalf("settle = %+v, %v", sr, fail)
	}
	if ops := strings.Join(f.fac.Ops(), ","); ops != "verify,settle" {
		t.Errorf("facilitator calls = %s", ops)
	}
	// The facilitator got the server's requirements, not the client's.
	body := f.fac.Calls()[0].Body
	if body["x402Version"] != 2.0 || body["paymentRequirements"].(map[string]any)["amount"] != "1000" {
		t.Errorf("verify body = %v", body)
	}
	if got := strings.Join(f.eventNames(), ","); got != "payment_required,payment_verified,payment_settled" {
		t.Errorf("events = %s", got)
	}
	l := f.ledger()
	if len(l) != 2 || l[0].Outcome != x402.OutcomeVerified || l[1].Outcome != x402.OutcomeSettled || l[1].Transaction != f.fac.Transaction ||
		l[1].Payer != x402test.Payer || l[1].Amount != "1000" || l[1].PaymentID != tk.PaymentID() {
		t.Errorf("settlement log = %+v", l)
	}
	noSecrets(t, f, pay)
	var pr x402.Pricing
	b, _ := os.ReadFile(f.dir.Payments(state.PricingSnapshot))
	if json.Unmarshal(b, &pr) != nil || pr.Mode != "on" || pr.FacilitatorURL != f.fac.URL || len(pr.Tools) != 2 {
		t.Errorf("pricing snapshot = %s", b)
	}
}

// noSecrets checks that neither the events nor the settlement log carry
// the payment's signature or payload.
func noSecrets(t *testing.T, f *fixture, pay json.RawMessage) {
	t.Helper()
	sig := x402test.Signature(pay)
	logb, _ := os.ReadFile(f.dir.Payments(state.SettlementLog))
	replayb, _ := os.ReadFile(f.dir.Payments(state.PaymentReplayLog))
	for name, s := range map[string]string{"events": f.events.String(), "settlement.log": string(logb), "replay.jsonl": string(replayb)} {
		if strings.Contains(s, sig) || strings.Contains(s, sig[2:]) || strings.Contains(s, "authorization") {
			t.Errorf("%s leaks the payment: %s", name, s)
		}
	}
}

func TestGateRefusesReplayEvenAfterRestart(t *testing.T) {
	f := newFixture(t)
	pay := f.pay()
	tk, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test")
	if fail != nil {
		t.Fatal(fail)
	}
	// In use by the first call: a concurrent second call is refused.
	if _, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test"); fail == nil || fail.Reason != x402.ReasonInUse {
		t.Fatalf("concurrent reuse: %v", fail)
	}
	if _, fail := f.gate.Settle(context.Background(), tk); fail != nil {
		t.Fatal(fail)
	}
	for i := 0; i < 2; i++ {
		_, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test")
		if fail == nil || fail.Stage != x402.StageReplay || fail.Reason != x402.ReasonReplayed || fail.Err.Retryable || fail.HTTPStatus() != 402 {
			t.Fatalf("replay %d: %+v", i, fail)
		}
		f.gate.Close()
		f.open() // restart
	}
	if n := f.fac.Count("verify"); n != 1 {
		t.Errorf("replays reached the facilitator: %d verify calls", n)
	}
	noSecrets(t, f, pay)
}

func TestGateCancelLeavesThePaymentUnspent(t *testing.T) {
	f := newFixture(t)
	pay := f.pay()
	tk, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test")
	if fail != nil {
		t.Fatal(fail)
	}
	f.gate.Cancel(tk, "INVALID_FIELD")
	if _, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test"); fail != nil {
		t.Fatalf("a payment for a failed call could not be reused: %v", fail)
	}
	if f.fac.Count("settle") != 0 {
		t.Error("a failed call was settled")
	}
	l := f.ledger()
	if len(l) < 2 || l[1].Outcome != x402.OutcomeNotSettled || l[1].Reason != "INVALID_FIELD" {
		t.Errorf("ledger = %+v", l)
	}
}

func TestGateFailsClosed(t *testing.T) {
	for _, c := range []struct {
		name   string
		b      x402test.Behaviour
		reason string
	}{
		{"down", x402test.Down, "facilitator_status"},
		{"malformed", x402test.Malformed, "facilitator_malformed"},
		{"slow", x402test.Slow, "facilitator_timeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.fac.Set(c.b)
			pay := f.pay()
			_, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test")
			if fail == nil || fail.Stage != x402.StageFacilitator || fail.Reason != c.reason || !fail.FacilitatorFailed() ||
				fail.HTTPStatus() != 502 || fail.Err.Code != errcode.Unauthorized || !fail.Err.Retryable {
				t.Fatalf("failure = %+v", fail)
			}
			// Nothing was spent: once the facilitator is back the same payment works.
			f.fac.Set(x402test.Normal)
			if _, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", pay, "test"); fail != nil {
				t.Fatalf("after recovery: %v", fail)
			}
		})
	}
}

func TestGateRejectsBadPayments(t *testing.T) {
	f := newFixture(t)
	req := f.gate.Require("dir2mcp.ask", "test").Required.Accepts[0]
	cheap := req
	cheap.Amount = "1"
	wrongTo := x402test.Pay(req)
	wrongTo = json.RawMessage(strings.Replace(string(wrongTo), `"to":"`+req.PayTo, `"to":"0x0000000000000000000000000000000000000bad`, 1))
	cases := []struct {
		name   string
		pay    json.RawMessage
		stage  x402.Stage
		reason string
		status int
	}{
		{"not json", json.RawMessage(`"nope"`), x402.StagePayload, x402.ReasonInvalidPayload, 400},
		{"v1", json.RawMessage(`{"x402Version":1,"accepted":{},"payload":{}}`), x402.StageMatch, x402.ReasonUnsupportedVersion, 402},
		{"underpaid", x402test.Pay(cheap), x402.StageMatch, x402.ReasonNoMatch, 402},
		{"wrong recipient", wrongTo, x402.StageVerify, "invalid_exact_evm_payload_recipient_mismatch", 402},
	}
	for _, c := range cases {
		_, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", c.pay, "test")
		if fail == nil || fail.Stage != c.stage || fail.Reason != c.reason || fail.HTTPStatus() != c.status || fail.Required.Error != c.reason {
			t.Errorf("%s: %+v", c.name, fail)
		}
	}
	if n := f.fac.Count("verify"); n != 1 {
		t.Errorf("only the well-formed matching payment should reach /verify; got %d calls", n)
	}
}

func TestGateSettlementFailures(t *testing.T) {
	f := newFixture(t)
	f.fac.Set(x402test.RejectSettle)
	tk, fail := f.gate.Authorize(context.Background(), "dir2mcp.ask", f.pay(), "test")
	if fail != nil {
		t.Fatal(fail)
	}
	_, fail = f.gate.Settle(context.Background(), tk)
	if fail == nil || fail.Stage != x402.StageSettle || fail.Reason != "insufficient_funds" || fail.Settlement == nil ||
		fail.Settlement.Success || fail.HTTPStatus() != 402 || !strings.Contains(fail.Err.Message, "withheld") {
		t.Fatalf("declined settlement: %+v", fail)
	}
	f.fac.Set(x402test.DownOnSettle)
	tk, _ = f.gate.Authorize(context.Background(), "dir2mcp.ask", f.pay(), "test")
	_, fail = f.gate.Settle(context.Background(), tk)
	if fail == nil || !fail.FacilitatorFailed() || fail.HTTPStatus() != 502 || fail.Settlement == nil || fail.Settlement.ErrorReason != "facilitator_status" ||
		!strings.Contains(fail.Err.Message, "check the payer's transactions") {
		t.Fatalf("settlement with the facilitator down: %+v", fail)
	}
	if got := f.eventNames(); got[len(got)-1] != x402.EvPaymentFailed {
		t.Errorf("events = %v", got)
	}
}
