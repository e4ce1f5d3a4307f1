package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/dir2mcp/dir2mcp/lib/x402/x402test"
)

// TestX402HTTP is the paid path over HTTP with the real binary and an
// in-process facilitator: lifecycle and ungated tools stay free, an unpaid
// gated call gets 402 + PAYMENT-REQUIRED before any tool work, a paid one
// is verified, run, settled and answered with PAYMENT-RESPONSE, a replay
// is refused (also after a restart), a failing facilitator fails closed,
// and the events, settlement log and pricing snapshot record it all
// without the payment signatures.
func TestX402HTTP(t *testing.T) {
	fac := x402test.New(x402Network)
	defer fac.Close()
	dir := copyCorpus(t, "corpus")
	cfg := x402Config(fac, "on", "      tools: [dir2mcp.search, dir2mcp.open_file]\n      prices:\n        dir2mcp.ask: \"0.01\"\n")
	writeFile(t, filepath.Join(dir, ".dir2mcp.yaml"), cfg)
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	srv := p.connect()
	c := newMCP(t, srv)
	c.initialize()

	// Never gated: listing, resources, prompts, ping, an ungated tool.
	for _, m := range []string{"tools/list", "resources/list", "prompts/list", "ping"} {
		resp, _ := c.rawPost(map[string]any{"jsonrpc": "2.0", "id": 100, "method": m, "params": map[string]any{}}, nil)
		if resp.StatusCode != 200 || resp.Header.Get(x402.HeaderPaymentRequired) != "" {
			t.Errorf("%s: HTTP %d %v", m, resp.StatusCode, resp.Header)
		}
	}
	if r := c.tool("dir2mcp.list_files", map[string]any{}); r.IsError {
		t.Errorf("ungated list_files failed: %+v", r)
	}
	p.wait("index_complete", 60*time.Second)

	search := map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
		"name": "dir2mcp.search", "arguments": map[string]any{"query": "quarterly ledger entries against the bank statement"}}}

	// Unpaid: 402 with PAYMENT-REQUIRED, decoded field by field.
	resp, raw := c.rawPost(search, nil)
	if resp.StatusCode != http.StatusPaymentRequired || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("unpaid search: HTTP %d %v %s", resp.StatusCode, resp.Header, raw)
	}
	var pr x402.PaymentRequired
	header(t, resp, x402.HeaderPaymentRequired, &pr)
	if pr.X402Version != 2 || pr.Error != "payment_required" || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED = %+v", pr)
	}
	if pr.Resource.URL != "https://docs.example.com/mcp" || !strings.Contains(pr.Resource.Description, "dir2mcp.search") || pr.Resource.MimeType != "application/json" {
		t.Errorf("resource = %+v", pr.Resource)
	}
	a := pr.Accepts[0]
	if a.Scheme != "exact" || a.Network != x402Network || a.Amount != "1000" || a.Asset != x402USDC || a.PayTo != x402PayTo ||
		a.MaxTimeoutSeconds != 300 || a.Extra["name"] != "USDC" || a.Extra["version"] != "2" {
		t.Errorf("accepts[0] = %+v", a)
	}
	if f := resultOf(t, raw).failure(t); f.Detail.Code != "UNAUTHORIZED" || f.Accepts[0].Amount != "1000" {
		t.Errorf("402 body = %s", raw)
	}
	if fac.Count("verify")+fac.Count("settle") != 0 {
		t.Fatalf("an unpaid call reached the facilitator: %v", fac.Ops())
	}

	// Paid: verify → run → settle → 200 with PAYMENT-RESPONSE.
	pay := x402test.Pay(a)
	resp, raw = c.rawPost(search, map[string]string{x402.HeaderPaymentSignature: signatureHeader(pay)})
	answered := time.Now()
	if resp.StatusCode != 200 || !strings.Contains(string(raw), "src/ledger/ledger.go") {
		t.Fatalf("paid search: HTTP %d %s", resp.StatusCode, raw)
	}
	var sr x402.SettleResponse
	header(t, resp, x402.HeaderPaymentResponse, &sr)
	if !sr.Success || sr.Transaction != fac.Transaction || sr.Network != x402Network || sr.Payer != x402test.Payer {
		t.Errorf("PAYMENT-RESPONSE = %+v", sr)
	}
	if !strings.Contains(resp.Header.Get("Cache-Control"), "private") {
		t.Errorf("Cache-Control = %q", resp.Header.Get("Cache-Control"))
	}
	if ops := paidOps(fac); strings.Join(ops, ",") != "verify,settle" {
		t.Fatalf("facilitator calls = %v", ops)
	}
	calls := paidCalls(fac)
	if body := calls[0].Body; body["paymentRequirements"].(map[string]any)["amount"] != "1000" || body["x402Version"] != 2.0 {
		t.Errorf("verify request = %v", body)
	}
	if !calls[1].At.Before(answered) {
		t.Error("the result arrived before the payment was settled")
	}

	// Replay: refused without asking the facilitator.
	resp, raw = c.rawPost(search, map[string]string{x402.HeaderPaymentSignature: signatureHeader(pay)})
	if resp.StatusCode != 402 || resultOf(t, raw).failure(t).Error != x402.ReasonReplayed || fac.Count("verify") != 1 {
		t.Errorf("replay: HTTP %d %s (verify calls %d)", resp.StatusCode, raw, fac.Count("verify"))
	}

	// MCP-native over HTTP: the payment in params._meta.
	pay2 := x402test.Pay(a)
	var meta map[string]any
	json.Unmarshal(pay2, &meta)
	native := map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": map[string]any{
		"name": "dir2mcp.search", "arguments": map[string]any{"query": "bank statement"}, "_meta": map[string]any{x402.MetaPayment: meta}}}
	resp, raw = c.rawPost(native, nil)
	if resp.StatusCode != 200 || resp.Header.Get(x402.HeaderPaymentResponse) == "" {
		t.Fatalf("MCP-native paid call: HTTP %d %s", resp.StatusCode, raw)
	}
	if s := resultOf(t, raw).settlement(t); s.Transaction != fac.Transaction {
		t.Errorf("_meta settlement = %+v", s)
	}

	// A per-tool price shows in the requirements of that tool.
	resp, _ = c.rawPost(map[string]any{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": map[string]any{
		"name": "dir2mcp.ask", "arguments": map[string]any{"question": "what is reconciled?"}}}, nil)
	var askPR x402.PaymentRequired
	header(t, resp, x402.HeaderPaymentRequired, &askPR)
	if resp.StatusCode != 402 || askPR.Accepts[0].Amount != "10000" {
		t.Errorf("ask: HTTP %d, amount %s (want 0.01 USDC = 10000)", resp.StatusCode, askPR.Accepts[0].Amount)
	}

	// Facilitator down or too slow: fail closed (502), nothing settled.
	settles := fac.Count("settle")
	for _, c2 := range []struct {
		b      x402test.Behaviour
		reason string
	}{{x402test.Down, "facilitator_status"}, {x402test.Malformed, "facilitator_malformed"}, {x402test.Slow, "facilitator_timeout"}} {
		fac.Set(c2.b)
		resp, raw = c.rawPost(search, map[string]string{x402.HeaderPaymentSignature: signatureHeader(x402test.Pay(a))})
		f := resultOf(t, raw).failure(t)
		if resp.StatusCode != http.StatusBadGateway || f.Error != c2.reason || f.Detail.Code != "UNAUTHORIZED" || !f.Detail.Retryable ||
			resp.Header.Get(x402.HeaderPaymentRequired) == "" {
			t.Errorf("facilitator %s: HTTP %d %+v", c2.reason, resp.StatusCode, f.Detail)
		}
	}
	fac.Set(x402test.Normal)
	if fac.Count("settle") != settles {
		t.Error("a payment was settled while the facilitator was failing")
	}

	// Settlement declined: the result is withheld.
	fac.Set(x402test.RejectSettle)
	resp, raw = c.rawPost(search, map[string]string{x402.HeaderPaymentSignature: signatureHeader(x402test.Pay(a))})
	var failed x402.SettleResponse
	header(t, resp, x402.HeaderPaymentResponse, &failed)
	if resp.StatusCode != 402 || failed.Success || failed.ErrorReason != "insufficient_funds" || strings.Contains(string(raw), "ledger.go") {
		t.Errorf("declined settlement: HTTP %d %+v %s", resp.StatusCode, failed, raw)
	}
	fac.Set(x402test.Normal)
	p.stop()

	// Events: required → verified → settled, failures reported.
	evs := paymentEvents(p.lines.String())
	var names []string
	for _, e := range evs {
		names = append(names, e["event"].(string))
	}
	order := strings.Join(names, ",")
	if !strings.HasPrefix(order, "payment_required,payment_verified,payment_settled,payment_failed") {
		t.Errorf("payment events = %s", order)
	}
	for _, e := range evs {
		if e["event"] == x402.EvPaymentSettled && (e["transaction"] != fac.Transaction || e["tool"] != "dir2mcp.search" || e["payer"] != x402test.Payer) {
			t.Errorf("payment_settled = %v", e)
		}
	}
	// Settlement log: one line per outcome, reconcilable, no payloads.
	l := ledger(t, dir)
	var outcomes []string
	for _, e := range l {
		outcomes = append(outcomes, e.Outcome)
	}
	if len(l) < 3 || l[0].Outcome != x402.OutcomeVerified || l[1].Outcome != x402.OutcomeSettled || l[1].Transaction != fac.Transaction ||
		l[1].Amount != "1000" || l[1].Payer != x402test.Payer || l[1].PayTo != x402PayTo || !slices.Contains(outcomes, x402.OutcomeSettleFail) {
		t.Errorf("settlement.log = %+v", l)
	}
	var pricing x402.Pricing
	b, _ := os.ReadFile(filepath.Join(dir, ".dir2mcp", "payments", "pricing.snapshot.json"))
	if json.Unmarshal(b, &pricing) != nil || pricing.Mode != "on" || pricing.Network != x402Network || pricing.Asset != x402USDC {
		t.Errorf("pricing.snapshot.json = %s", b)
	}
	noLeak(t, dir, map[string]string{"stdout": p.lines.String(), "stderr": p.stderr.String()}, pay, pay2)

	// After a restart the used payment is still refused.
	p = start(t, "dir2mcp", nil, "serve", "--dir", dir, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
	c = newMCP(t, p.connect())
	c.initialize()
	resp, raw = c.rawPost(search, map[string]string{x402.HeaderPaymentSignature: signatureHeader(pay)})
	if resp.StatusCode != 402 || resultOf(t, raw).failure(t).Error != x402.ReasonReplayed {
		t.Errorf("replay after restart: HTTP %d %s", resp.StatusCode, raw)
	}
}

// paidCalls are the facilitator's verify and settle calls (the startup
// probe of /supported aside).
func paidCalls(f *x402test.Facilitator) []x402test.Call {
	var out []x402test.Call
	for _, c := range f.Calls() {
		if c.Op != "supported" {
			out = append(out, c)
		}
	}
	return out
}

func paidOps(f *x402test.Facilitator) []string {
	var out []string
	for _, c := range paidCalls(f) {
		out = append(out, c.Op)
	}
	return out
}

// TestX402Stdio is the MCP-native flow over stdio: the payment-required
// tool result, then a paid retry carrying params._meta["x402/payment"]
// answered with _meta["x402/payment-response"].
func TestX402Stdio(t *testing.T) {
	fac := x402test.New(x402Network)
	defer fac.Close()
	dir := copyCorpus(t, "corpus")
	writeFile(t, filepath.Join(dir, ".dir2mcp.yaml"), x402Config(fac, "required", ""))
	c := startStdio(t, "up", "--stdio", "--json", "--dir", dir, "--non-interactive")
	c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "x402-stdio", "version": "1"}})
	c.notify("notifications/initialized")
	if r := c.call("tools/list", map[string]any{}); !strings.Contains(string(r), "dir2mcp.list_files") {
		t.Fatalf("tools/list: %s", r)
	}
	c.call("ping", map[string]any{})

	params := map[string]any{"name": "dir2mcp.list_files", "arguments": map[string]any{"path_prefix": "src/"}}
	var r paidResult
	json.Unmarshal(c.call("tools/call", params), &r)
	f := r.failure(t)
	if f.Error != "payment_required" || f.Accepts[0].Amount != "1000" || f.Detail.Code != "UNAUTHORIZED" {
		t.Fatalf("unpaid: %+v", f)
	}
	var wrapped map[string]struct {
		Code int                  `json:"code"`
		Data x402.PaymentRequired `json:"data"`
	}
	if json.Unmarshal([]byte(r.Content[0].Text), &wrapped) != nil || wrapped[x402.MetaError].Code != 402 || wrapped[x402.MetaError].Data.X402Version != 2 {
		t.Errorf("content[0].text = %s", r.Content[0].Text)
	}
	if len(paidCalls(fac)) != 0 {
		t.Fatal("an unpaid call reached the facilitator")
	}

	pay := x402test.Pay(f.Accepts[0])
	var meta map[string]any
	json.Unmarshal(pay, &meta)
	params["_meta"] = map[string]any{x402.MetaPayment: meta}
	r = paidResult{}
	json.Unmarshal(c.call("tools/call", params), &r)
	if s := r.settlement(t); s.Transaction != fac.Transaction || s.Payer != x402test.Payer {
		t.Errorf("settlement = %+v", s)
	}
	if ops := paidOps(fac); strings.Join(ops, ",") != "verify,settle" {
		t.Errorf("facilitator calls = %v", ops)
	}
	r = paidResult{}
	json.Unmarshal(c.call("tools/call", params), &r)
	if f := r.failure(t); f.Error != x402.ReasonReplayed {
		t.Errorf("replay over stdio: %+v", f)
	}
	c.stdin.Close()
	c.cmd.Wait()
	evs := paymentEvents(c.stderr.String())
	if len(evs) < 4 || evs[0]["transport"] != "stdio" {
		t.Errorf("stdio payment events on stderr: %v", evs)
	}
	noLeak(t, dir, map[string]string{"stderr": c.stderr.String()}, pay)
}

// TestX402OffIsByteIdentical serves one index three ways (no x402 config;
// x402 fully configured but mode off; mode on charging only dir2mcp.ask)
// and requires byte-identical answers to the same free requests (session
// ids, SSE stream ids and Date aside): payments never touch the free path.
func TestX402OffIsByteIdentical(t *testing.T) {
	fac := x402test.New(x402Network)
	defer fac.Close()
	dir := copyCorpus(t, "corpus")
	p := start(t, "dir2mcp", nil, upArgs(dir)...)
	p.wait("index_complete", 60*time.Second)
	p.stop()

	requests := []map[string]any{
		{"method": "tools/list", "params": map[string]any{}},
		{"method": "tools/call", "params": map[string]any{"name": "dir2mcp.search", "arguments": map[string]any{"query": "quarterly ledger entries"}}},
		{"method": "tools/call", "params": map[string]any{"name": "dir2mcp.list_files", "arguments": map[string]any{"path_prefix": "src/"}}},
		{"method": "tools/call", "params": map[string]any{"name": "dir2mcp.open_file", "arguments": map[string]any{"rel_path": "src/ledger/ledger.go", "start_line": 1, "end_line": 20}}},
		{"method": "tools/call", "params": map[string]any{"name": "dir2mcp.open_file", "arguments": map[string]any{"rel_path": "../etc/passwd"}}},
		{"method": "resources/list", "params": map[string]any{}},
		{"method": "prompts/list", "params": map[string]any{}},
		{"method": "ping", "params": map[string]any{}},
	}
	serve := func(config string) []string {
		cfgPath := filepath.Join(dir, ".dir2mcp.yaml")
		os.Remove(cfgPath)
		if config != "" {
			writeFile(t, cfgPath, config)
		}
		p := start(t, "dir2mcp", nil, "serve", "--dir", dir, "--json", "--non-interactive", "--listen", "127.0.0.1:0")
		defer p.stop()
		c := newMCP(t, p.connect())
		c.initialize()
		var out []string
		for i, r := range requests {
			msg := map[string]any{"jsonrpc": "2.0", "id": i + 10}
			for k, v := range r {
				msg[k] = v
			}
			resp, raw := c.rawPost(msg, nil)
			h := resp.Header.Clone()
			h.Del("Date")
			h.Del("Mcp-Session-Id")
			var b strings.Builder
			h.Write(&b)
			var body []string
			for _, ln := range strings.Split(string(raw), "\n") {
				if !strings.HasPrefix(ln, "id:") {
					body = append(body, ln)
				}
			}
			out = append(out, resp.Status+"\n"+b.String()+strings.Join(body, "\n"))
		}
		return out
	}
	payments := filepath.Join(dir, ".dir2mcp", "payments")
	free := serve("")
	configuredOff := serve(x402Config(fac, "off", "      tools: [dir2mcp.ask]\n"))
	if _, err := os.Stat(payments); !os.IsNotExist(err) {
		t.Errorf("x402 off created %s", payments)
	}
	on := serve(x402Config(fac, "on", "      tools: [dir2mcp.ask]\n"))
	if _, err := os.Stat(payments); err != nil {
		t.Errorf("x402 on did not create %s: %v", payments, err)
	}
	for i := range requests {
		if d := firstDiff(free[i], configuredOff[i]); d != "" {
			t.Errorf("request %d (%v) differs with x402 configured but off: %s", i, requests[i]["params"], d)
		}
		if d := firstDiff(free[i], on[i]); d != "" {
			t.Errorf("request %d (%v) differs with x402 on for another tool: %s", i, requests[i]["params"], d)
		}
	}
	if len(paidCalls(fac)) != 0 {
		t.Errorf("free requests reached the facilitator: %v", paidOps(fac))
	}
}

// TestX402ConfigErrors: a paid mode with an invalid setting refuses to
// start with exit 2 and names what is wrong.
func TestX402ConfigErrors(t *testing.T) {
	dir := copyCorpus(t, "corpus")
	payTo := "DIR2MCP_X402_ROUTE_POLICY_TOOLS_CALL_PAY_TO=" + x402PayTo
	fac := "--x402-facilitator-url=https://facilitator.example"
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--x402", "required"}, "x402.facilitator_url"},
		{[]string{payTo}, []string{"--x402", "required", fac, "--x402-network", "base"}, "CAIP-2"},
		{[]string{payTo}, []string{"--x402", "required", "--x402-facilitator-url", "http://facilitator.example"}, "https"},
		{[]string{"DIR2MCP_X402_ROUTE_POLICY_TOOLS_CALL_PAY_TO=alice"}, []string{"--x402", "required", fac}, "x402.route_policy.tools_call.pay_to"},
		{[]string{payTo}, []string{"--x402", "required", fac, "--x402-price", "0"}, "zero"},
		{[]string{payTo}, []string{"--x402", "required", fac, "--x402-price", "0.0000001"}, "more decimal places"},
		{[]string{payTo}, []string{"--x402", "on", fac}, "x402.route_policy.tools_call.tools"},
		{[]string{payTo, "DIR2MCP_X402_ROUTE_POLICY_TOOLS_CALL_TOOLS=dir2mcp.serch"}, []string{"--x402", "on", fac}, `no tool named "dir2mcp.serch"`},
		{[]string{payTo, "DIR2MCP_X402_ROUTE_POLICY_TOOLS_CALL_ASSET=0x1111111111111111111111111111111111111111"}, []string{"--x402", "required", fac}, "x402.route_policy.tools_call.decimals"},
		{[]string{payTo}, []string{"--x402", "maybe", fac}, "x402.mode"},
	}
	for _, c := range cases {
		cmd := execDir2mcp(append([]string{"up", "--dir", dir, "--non-interactive", "--listen", "127.0.0.1:0"}, c.args...), c.env)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), c.want) || !strings.Contains(string(out), "CONFIG_INVALID") {
			t.Errorf("%v %v: exit %d, want 2 naming %q:\n%s", c.env, c.args, code, c.want, out)
		}
	}
}
