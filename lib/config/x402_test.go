package config

import (
	"strings"
	"testing"
)

const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// paid is a valid x402 section in mode with extra tools_call lines.
func paid(mode, toolsCall string) string {
	return "x402:\n  mode: " + mode + "\n  facilitator_url: https://x402.example/facilitator\n  route_policy:\n    tools_call:\n      pay_to: \"" + payTo + "\"\n" + toolsCall
}

func TestX402ValidPaidModes(t *testing.T) {
	cfg, _, err := loadYAML(t, paid("required", ""), nil)
	if err != nil || cfg.X402.Mode != "required" {
		t.Fatalf("required: %v %+v", err, cfg)
	}
	cfg, _, err = loadYAML(t, paid("on", "      tools: [dir2mcp.ask]\n      prices:\n        dir2mcp.search: \"0.0005\"\n"), nil)
	if err != nil || cfg.X402.RoutePolicy.ToolsCall.Prices["dir2mcp.search"] != "0.0005" {
		t.Fatalf("on: %v", err)
	}
	// A loopback facilitator may use plain http (local development).
	body := strings.Replace(paid("required", ""), "https://x402.example/facilitator", "http://127.0.0.1:4021", 1)
	if _, _, err := loadYAML(t, body, nil); err != nil {
		t.Errorf("loopback http facilitator refused: %v", err)
	}
	// Solana addresses are base58 keys.
	sol := "x402:\n  mode: required\n  facilitator_url: https://f.example\n  route_policy:\n    tools_call:\n      network: solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp\n      pay_to: 9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM\n      asset: EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v\n      decimals: 6\n"
	if _, _, err := loadYAML(t, sol, nil); err != nil {
		t.Errorf("solana config refused: %v", err)
	}
}

func TestX402InvalidConfigNamesTheKey(t *testing.T) {
	cases := []struct{ body, field, frag string }{
		{strings.Replace(paid("required", ""), "https://x402.example/facilitator", "http://x402.example", 1), "x402.facilitator_url", "https"},
		{strings.Replace(paid("required", ""), payTo, "0xabc", 1), "x402.route_policy.tools_call.pay_to", "40-hex-digit"},
		{paid("required", "      asset: USDC\n"), "x402.route_policy.tools_call.asset", "token address"},
		{paid("on", ""), "x402.route_policy.tools_call.tools", "x402.mode required"},
		{paid("required", "      price: \"0.000\"\n"), "x402.route_policy.tools_call.price", "zero"},
		{paid("required", "      price: \"$1\"\n"), "x402.route_policy.tools_call.price", "decimal price"},
		{paid("required", "      scheme: upto\n"), "x402.route_policy.tools_call.scheme", "exact"},
		{paid("required", "      network: eip155\n"), "x402.route_policy.tools_call.network", "CAIP-2"},
		{paid("required", "      prices:\n        dir2mcp.ask: \"-1\"\n"), "x402.route_policy.tools_call.prices.dir2mcp.ask", "decimal"},
		{paid("required", "      prices:\n        \"bad tool\": \"1\"\n"), "x402.route_policy.tools_call.prices.bad tool", "tool name"},
		{paid("required", "      max_timeout_seconds: 0\n"), "x402.route_policy.tools_call.max_timeout_seconds", "from 1"},
		{paid("required", "") + "  facilitator_timeout: \"0\"\n", "x402.facilitator_timeout", "> 0"},
	}
	for _, c := range cases {
		_, _, err := loadYAML(t, c.body, nil)
		wantConfigErr(t, err, c.field, c.frag)
	}
}

// x402.enabled is a legacy switch: it means mode on only when nothing set
// mode, and never overrides an explicit mode.
func TestX402EnabledIsALegacyAliasForModeOn(t *testing.T) {
	base := "x402:\n  enabled: true\n  facilitator_url: https://f.example\n  route_policy:\n    tools_call:\n      pay_to: \"" + payTo + "\"\n      tools: [dir2mcp.ask]\n"
	cfg, src, err := loadYAML(t, base, nil)
	if err != nil || cfg.X402.Mode != "on" {
		t.Fatalf("enabled without mode: mode=%q err=%v", cfg.X402.Mode, err)
	}
	if src.Of("x402.mode") != SourceFile {
		t.Errorf("mode source = %q, want file (from x402.enabled)", src.Of("x402.mode"))
	}
	cfg, src, err = loadYAML(t, strings.Replace(base, "  enabled: true\n", "  enabled: true\n  mode: \"off\"\n", 1), nil)
	if err != nil || cfg.X402.Mode != "off" {
		t.Fatalf("explicit off: mode=%q err=%v", cfg.X402.Mode, err)
	}
	if len(src.Warnings) != 1 || !strings.Contains(src.Warnings[0], "x402.mode decides") {
		t.Errorf("warnings = %v", src.Warnings)
	}
	// A flag beats the legacy switch too.
	dir := t.TempDir()
	writeConfig(t, dir, base)
	cfg, _, err = Load(LoadOptions{Dir: dir, Env: env(nil), Flags: map[string]string{"x402.mode": "required"}})
	if err != nil || cfg.X402.Mode != "required" {
		t.Fatalf("flag: mode=%q err=%v", cfg.X402.Mode, err)
	}
	// Off by default: nothing paid, nothing required.
	cfg, _, err = Load(LoadOptions{Dir: t.TempDir(), Env: env(nil)})
	if err != nil || cfg.X402.Mode != "off" {
		t.Fatalf("default: %q %v", cfg.X402.Mode, err)
	}
}
