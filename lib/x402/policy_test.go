package x402

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

const testPayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// testConfig is a valid paid config in mode on a test network.
func testConfig(mode string) config.X402Config {
	c := config.Default().X402
	c.Mode = mode
	c.FacilitatorURL = "https://f.example"
	c.RoutePolicy.ToolsCall.Network = "eip155:84532"
	c.RoutePolicy.ToolsCall.PayTo = testPayTo
	return c
}

var testTools = []Tool{
	{Name: "dir2mcp.search", Title: "Search the directory", Description: "Hybrid search.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}},
	{Name: "dir2mcp.ask", Title: "Answer a question"},
	{Name: "dir2mcp.stats"},
}

func bound(t *testing.T, c config.X402Config) *Policy {
	t.Helper()
	p, err := NewPolicy(c, "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Bind(testTools); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestModesGateTheRightTools(t *testing.T) {
	p := bound(t, testConfig(ModeRequired))
	for _, n := range []string{"dir2mcp.search", "dir2mcp.ask", "dir2mcp.stats"} {
		if !p.Gated(n) {
			t.Errorf("required: %s not gated", n)
		}
	}
	if p.Gated("dir2mcp.nope") {
		t.Error("an unknown tool is gated")
	}
	c := testConfig(ModeOn)
	c.RoutePolicy.ToolsCall.Tools = []string{"dir2mcp.ask"}
	c.RoutePolicy.ToolsCall.Prices = map[string]string{"dir2mcp.stats": "0.5"}
	p = bound(t, c)
	if p.Gated("dir2mcp.search") || !p.Gated("dir2mcp.ask") || !p.Gated("dir2mcp.stats") {
		t.Errorf("on: search=%v ask=%v stats=%v", p.Gated("dir2mcp.search"), p.Gated("dir2mcp.ask"), p.Gated("dir2mcp.stats"))
	}
	if a := p.Requirements("dir2mcp.ask").Amount; a != "1000" {
		t.Errorf("default price 0.001 USDC = %s atomic, want 1000", a)
	}
	if a := p.Requirements("dir2mcp.stats").Amount; a != "500000" {
		t.Errorf("per-tool price 0.5 USDC = %s atomic, want 500000", a)
	}
}

func TestPaymentRequiredShape(t *testing.T) {
	c := testConfig(ModeRequired)
	c.ResourceBaseURL = "https://docs.example.com/"
	p := bound(t, c)
	pr := p.PaymentRequired("dir2mcp.search", ReasonPaymentRequired)
	b, _ := json.Marshal(pr)
	var m map[string]any
	json.Unmarshal(b, &m)
	acc := m["accepts"].([]any)[0].(map[string]any)
	want := map[string]any{"scheme": "exact", "network": "eip155:84532", "amount": "1000",
		"asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e", "payTo": testPayTo, "maxTimeoutSeconds": 300.0}
	for k, v := range want {
		if acc[k] != v {
			t.Errorf("accepts[0].%s = %v, want %v", k, acc[k], v)
		}
	}
	if ex := acc["extra"].(map[string]any); ex["name"] != "USDC" || ex["version"] != "2" {
		t.Errorf("extra = %v, want the USDC EIP-712 domain", ex)
	}
	res := m["resource"].(map[string]any)
	if m["x402Version"] != 2.0 || m["error"] != "payment_required" || res["url"] != "https://docs.example.com/mcp" ||
		!strings.Contains(res["description"].(string), "dir2mcp.search") || m["extensions"] != nil {
		t.Errorf("PaymentRequired = %s", b)
	}
	// Without a base URL the resource names the tool.
	p = bound(t, testConfig(ModeRequired))
	if u := p.PaymentRequired("dir2mcp.ask", "x").Resource.URL; u != "mcp://tool/dir2mcp.ask" {
		t.Errorf("resource url = %q", u)
	}
}

func TestBazaarMetadata(t *testing.T) {
	c := testConfig(ModeRequired)
	c.Bazaar.Enabled = true
	if _, err := NewPolicy(c, "/mcp"); errcode.Of(err) != errcode.ConfigInvalid || !strings.Contains(err.Error(), "resource_base_url") {
		t.Fatalf("bazaar without a public URL: %v", err)
	}
	c.ResourceBaseURL = "https://docs.example.com"
	c.Bazaar.Metadata = map[string]string{"description": "Docs search", "service_name": "Example Docs", "tags": "docs, search,Docs", "icon_url": "https://docs.example.com/icon.png"}
	p := bound(t, c)
	pr := p.PaymentRequired("dir2mcp.search", ReasonPaymentRequired)
	if pr.Resource.ServiceName != "Example Docs" || strings.Join(pr.Resource.Tags, "|") != "docs|search" || pr.Resource.IconURL == "" ||
		!strings.HasSuffix(pr.Resource.Description, "— Docs search") {
		t.Errorf("resource = %+v", pr.Resource)
	}
	info := pr.Extensions[BazaarKey].(map[string]any)["info"].(map[string]any)
	in := info["input"].(map[string]any)
	if in["type"] != "mcp" || in["tool"] != "dir2mcp.search" || in["description"] != "Hybrid search." || in["inputSchema"] == nil {
		t.Errorf("bazaar input = %v", in)
	}
	for k, v := range map[string]string{"service_name": strings.Repeat("x", 33), "icon_url": "http://127.0.0.1/i.png", "tags": "a,b,c,d,e,f", "colour": "red"} {
		c.Bazaar.Metadata = map[string]string{k: v}
		_, err := NewPolicy(c, "/mcp")
		var e *errcode.Error
		if !errors.As(err, &e) || e.Field != "x402.bazaar.metadata."+k {
			t.Errorf("metadata %s=%q: %v", k, v, err)
		}
	}
}

func TestAssetResolution(t *testing.T) {
	c := testConfig(ModeRequired)
	c.RoutePolicy.ToolsCall.Network = "eip155:999999"
	if _, err := NewPolicy(c, "/mcp"); !strings.Contains(fmtErr(err), "no default stablecoin") {
		t.Errorf("unknown network without asset: %v", err)
	}
	c.RoutePolicy.ToolsCall.Asset = "0x1111111111111111111111111111111111111111"
	if _, err := NewPolicy(c, "/mcp"); !strings.Contains(fmtErr(err), "decimals") {
		t.Errorf("custom asset without decimals: %v", err)
	}
	c.RoutePolicy.ToolsCall.Decimals = 18
	if _, err := NewPolicy(c, "/mcp"); !strings.Contains(fmtErr(err), "EIP-712") {
		t.Errorf("custom EVM asset without domain: %v", err)
	}
	c.RoutePolicy.ToolsCall.Extra = map[string]string{"name": "Token", "version": "1"}
	p, err := NewPolicy(c, "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	p.Bind(testTools)
	if a := p.Requirements("dir2mcp.ask").Amount; a != "1000000000000000" {
		t.Errorf("0.001 of an 18-decimal token = %s", a)
	}
	// The known asset given explicitly must not contradict its decimals.
	c = testConfig(ModeRequired)
	c.RoutePolicy.ToolsCall.Asset = "0x036cbd53842c5426634e7929541ec2318f3dcf7e"
	c.RoutePolicy.ToolsCall.Decimals = 18
	if _, err := NewPolicy(c, "/mcp"); !strings.Contains(fmtErr(err), "has 6 decimals") {
		t.Errorf("wrong decimals for USDC: %v", err)
	}
	// A price finer than the asset is refused, not rounded.
	c = testConfig(ModeRequired)
	c.RoutePolicy.ToolsCall.Price = "0.0000001"
	if _, err := NewPolicy(c, "/mcp"); !strings.Contains(fmtErr(err), "more decimal places") {
		t.Errorf("sub-atomic price: %v", err)
	}
}

func TestBindRefusesUnservedTools(t *testing.T) {
	c := testConfig(ModeOn)
	c.RoutePolicy.ToolsCall.Tools = []string{"dir2mcp.serch"}
	p, _ := NewPolicy(c, "/mcp")
	err := p.Bind(testTools)
	var e *errcode.Error
	if !errors.As(err, &e) || e.Code != errcode.ConfigInvalid || e.Field != "x402.route_policy.tools_call.tools" || !strings.Contains(e.Message, "dir2mcp.search") {
		t.Fatalf("typo in tools: %v", err)
	}
	c = testConfig(ModeOn)
	c.RoutePolicy.ToolsCall.Prices = map[string]string{"dir2mcp.nope": "1"}
	p, _ = NewPolicy(c, "/mcp")
	if err := p.Bind(testTools); !errors.As(err, &e) || e.Field != "x402.route_policy.tools_call.prices.dir2mcp.nope" {
		t.Fatalf("typo in prices: %v", err)
	}
}

func TestPricingSnapshot(t *testing.T) {
	c := testConfig(ModeOn)
	c.RoutePolicy.ToolsCall.Tools = []string{"dir2mcp.ask"}
	pr := bound(t, c).Pricing()
	if pr.Mode != ModeOn || pr.Decimals != 6 || pr.AssetSymbol != "USDC" || len(pr.Tools) != 3 {
		t.Fatalf("pricing = %+v", pr)
	}
	for _, tl := range pr.Tools {
		if tl.Gated != (tl.Name == "dir2mcp.ask") || (tl.Gated && tl.Amount != "1000") {
			t.Errorf("tool line %+v", tl)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
