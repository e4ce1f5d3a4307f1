package config

import (
	"fmt"
	"net"
	"net/url"
	"reflect"
	"regexp"
	"strings"
)

// x402 key syntax (SPEC §18): CAIP-2 network ids, decimal prices, the
// address forms of the namespaces dir2mcp knows.
var (
	// caip2 is a CAIP-2 chain id: namespace:reference.
	caip2   = regexp.MustCompile(`^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$`)
	decimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	// evmAddress is a 20-byte hex address (EIP-55 checksum case allowed).
	evmAddress = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	// base58Key is a Solana public key (32 bytes in base58).
	base58Key = regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`)
	toolName  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
)

func network(v reflect.Value) *problem {
	if !caip2.MatchString(v.String()) {
		return &problem{msg: fmt.Sprintf("%q is not a CAIP-2 network id like eip155:8453 (base), eip155:84532 (base sepolia) or solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", v.String())}
	}
	return nil
}

// price accepts a positive decimal amount of whole asset units.
func price(v reflect.Value) *problem {
	s := v.String()
	if !decimal.MatchString(s) {
		return &problem{msg: fmt.Sprintf("%q is not a decimal price like 0.001 (whole asset units: USDC dollars, no currency sign)", s)}
	}
	if strings.Trim(s, "0.") == "" {
		return &problem{msg: fmt.Sprintf("%q is zero; a paid tool needs a price > 0 (to serve a tool free, leave it out of x402.route_policy.tools_call.tools in mode on)", s)}
	}
	return nil
}

func positiveDuration(v reflect.Value) *problem {
	if v.Int() <= 0 {
		return &problem{msg: "must be a duration > 0 like 10s"}
	}
	return nil
}

func validToolName(s string) bool { return toolName.MatchString(s) }

// validAddress reports whether addr has the address form of network's
// namespace; namespaces without a known form accept any token without
// spaces.
func validAddress(network, addr string) bool {
	ns, _, _ := strings.Cut(network, ":")
	switch ns {
	case "eip155":
		return evmAddress.MatchString(addr)
	case "solana":
		return base58Key.MatchString(addr)
	}
	return addr != "" && !strings.ContainsAny(addr, " \t\r\n")
}

// addressForm describes the address form validAddress wants for network.
func addressForm(network string) string {
	ns, _, _ := strings.Cut(network, ":")
	switch ns {
	case "eip155":
		return "a 0x-prefixed 40-hex-digit address"
	case "solana":
		return "a base58 public key"
	}
	return "an address without spaces"
}

// normalizeX402 applies the legacy switches (Load calls it before
// validation): x402.enabled or
// x402.route_policy.tools_call.enabled set to true while no layer set
// x402.mode means mode on. An explicit mode always wins; a true switch
// under an explicit mode off draws a warning.
func normalizeX402(cfg *Config, src *Sources) {
	x := &cfg.X402
	legacy := ""
	switch {
	case x.Enabled:
		legacy = "x402.enabled"
	case x.RoutePolicy.ToolsCall.Enabled:
		legacy = "x402.route_policy.tools_call.enabled"
	}
	if legacy == "" {
		return
	}
	if src.Of("x402.mode") == SourceDefault {
		x.Mode = "on"
		src.set("x402.mode", src.Of(legacy), src.Line(legacy))
		return
	}
	if x.Mode == "off" {
		src.warn("%s is true (%s) but x402.mode is off (%s); x402.mode decides: payments are off",
			legacy, src.describe(legacy), src.describe("x402.mode"))
	}
}

// validateX402 checks what a paid mode needs: a facilitator reached over
// https (plain http only on a loopback address, since payment
// authorizations travel to it), a receiving address and an asset in the
// network's address form, and, in mode on, at least one named tool.
func validateX402(cfg *Config, src *Sources) error {
	x := cfg.X402
	if x.Mode == "off" {
		return nil
	}
	tc := x.RoutePolicy.ToolsCall
	if x.FacilitatorURL == "" {
		return cross(src, "x402.facilitator_url", fmt.Sprintf("must be set when x402.mode is %s (flag --x402-facilitator-url)", x.Mode))
	}
	if u, err := url.Parse(x.FacilitatorURL); err == nil && u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return cross(src, "x402.facilitator_url", fmt.Sprintf("%q uses plain http; payment authorizations must travel over https (http is allowed only on a loopback address)", x.FacilitatorURL))
	}
	if tc.PayTo == "" {
		return cross(src, "x402.route_policy.tools_call.pay_to", fmt.Sprintf("must name the receiving address when x402.mode is %s", x.Mode))
	}
	if !validAddress(tc.Network, tc.PayTo) {
		return cross(src, "x402.route_policy.tools_call.pay_to", fmt.Sprintf("%q is not a receiving address on %s; want %s", tc.PayTo, tc.Network, addressForm(tc.Network)))
	}
	if tc.Asset != "" && !validAddress(tc.Network, tc.Asset) {
		return cross(src, "x402.route_policy.tools_call.asset", fmt.Sprintf("%q is not a token address on %s; want %s", tc.Asset, tc.Network, addressForm(tc.Network)))
	}
	if x.Mode == "on" && len(tc.Tools) == 0 && len(tc.Prices) == 0 {
		return cross(src, "x402.route_policy.tools_call.tools", "names no tool, and x402.mode on charges only the tools named there or in x402.route_policy.tools_call.prices; name them (e.g. [dir2mcp.ask]) or use x402.mode required to charge every tool call")
	}
	return nil
}

// loopbackHost reports whether host is localhost or a loopback IP.
func loopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
