package x402

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Modes (x402.mode).
const (
	ModeOff      = "off"
	ModeOn       = "on"
	ModeRequired = "required"
)

// Tool is what the policy knows of a served tool: its name to price, and
// its title, description and input schema for payment requirements and
// Bazaar discovery metadata.
type Tool struct {
	Name        string
	Title       string
	Description string
	InputSchema any
}

// Policy decides which tool calls are paid and what each costs. Build it
// with NewPolicy, then Bind it to the served tools.
type Policy struct {
	mode       string
	scheme     string
	network    string
	payTo      string
	asset      Asset
	maxTimeout int
	price      string            // default price
	prices     map[string]string // per-tool overrides
	named      map[string]bool   // tools charged in mode on
	baseURL    string            // public endpoint URL ("" = mcp://tool/<name>)
	bazaar     *bazaarMeta       // nil = no discovery metadata

	tools map[string]Tool
	reqs  map[string]PaymentRequirements // per gated tool
}

// NewPolicy builds the policy of c for an MCP endpoint at mcpPath. It
// resolves the asset (the network's USDC unless x402.route_policy
// .tools_call.asset names another token, which then needs decimals and, on
// EVM, the EIP-712 name and version in extra) and converts every price to
// atomic units. Errors are CONFIG_INVALID naming the key.
func NewPolicy(c config.X402Config, mcpPath string) (*Policy, error) {
	tc := c.RoutePolicy.ToolsCall
	p := &Policy{
		mode: c.Mode, scheme: tc.Scheme, network: tc.Network, payTo: tc.PayTo,
		maxTimeout: tc.MaxTimeoutSeconds, price: tc.Price,
		prices: map[string]string{}, named: map[string]bool{},
	}
	if p.maxTimeout <= 0 {
		p.maxTimeout = 300
	}
	asset, err := resolveAsset(tc)
	if err != nil {
		return nil, err
	}
	p.asset = asset
	if _, err := ToAtomic(p.price, asset.Decimals); err != nil {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "x402.route_policy.tools_call.price", "x402.route_policy.tools_call.price: %v", err)
	}
	for name, pr := range tc.Prices {
		if _, err := ToAtomic(pr, asset.Decimals); err != nil {
			return nil, errcode.FieldError(errcode.ConfigInvalid, "x402.route_policy.tools_call.prices."+name, "x402.route_policy.tools_call.prices.%s: %v", name, err)
		}
		p.prices[name] = pr
		p.named[name] = true
	}
	for _, name := range tc.Tools {
		p.named[name] = true
	}
	if c.ResourceBaseURL != "" {
		p.baseURL = strings.TrimRight(c.ResourceBaseURL, "/") + mcpPath
	}
	if c.Bazaar.Enabled {
		if c.ResourceBaseURL == "" {
			return nil, errcode.FieldError(errcode.ConfigInvalid, "x402.resource_base_url",
				"x402.resource_base_url: must be set when x402.bazaar.enabled is true (discovery lists the public URL clients call)")
		}
		if p.bazaar, err = newBazaarMeta(c.Bazaar.Metadata); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// resolveAsset finds the token prices are paid in.
func resolveAsset(tc config.X402Price) (Asset, error) {
	const key = "x402.route_policy.tools_call."
	if tc.Asset == "" {
		a, ok := DefaultAsset(tc.Network)
		if !ok {
			return Asset{}, errcode.FieldError(errcode.ConfigInvalid, key+"asset",
				"%sasset: dir2mcp knows no default stablecoin on %s; set the token address with its decimals (and, on EVM, extra.name and extra.version of its EIP-712 domain)", key, tc.Network)
		}
		return withExtra(a, tc.Extra), nil
	}
	if a, ok := knownAsset(tc.Network, tc.Asset); ok {
		if tc.Decimals != 0 && tc.Decimals != a.Decimals {
			return Asset{}, errcode.FieldError(errcode.ConfigInvalid, key+"decimals",
				"%sdecimals: %s on %s has %d decimals, not %d", key, a.Symbol, tc.Network, a.Decimals, tc.Decimals)
		}
		return withExtra(a, tc.Extra), nil
	}
	if tc.Decimals <= 0 {
		return Asset{}, errcode.FieldError(errcode.ConfigInvalid, key+"decimals",
			"%sdecimals: must be set for the custom asset %s (prices are converted to its atomic units)", key, tc.Asset)
	}
	a := withExtra(Asset{Address: tc.Asset, Decimals: tc.Decimals}, tc.Extra)
	if strings.HasPrefix(tc.Network, "eip155:") && (a.Extra["name"] == nil || a.Extra["version"] == nil) {
		return Asset{}, errcode.FieldError(errcode.ConfigInvalid, key+"extra",
			"%sextra: the custom EVM asset %s needs name and version (its EIP-712 domain) for the exact scheme", key, tc.Asset)
	}
	return a, nil
}

// withExtra returns a with extra merged over its own extra.
func withExtra(a Asset, extra map[string]string) Asset {
	m := make(map[string]any, len(a.Extra)+len(extra))
	for k, v := range a.Extra {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	a.Extra = m
	return a
}

// Bind records the served tools and prices each gated one. Every tool
// named in the config must be served (CONFIG_INVALID otherwise), so a
// typo never leaves a tool free by accident.
func (p *Policy) Bind(tools []Tool) error {
	p.tools = make(map[string]Tool, len(tools))
	var names []string
	for _, t := range tools {
		p.tools[t.Name] = t
		names = append(names, t.Name)
	}
	sort.Strings(names)
	for name := range p.named {
		if _, ok := p.tools[name]; !ok {
			field := "x402.route_policy.tools_call.tools"
			if _, priced := p.prices[name]; priced {
				field = "x402.route_policy.tools_call.prices." + name
			}
			return errcode.FieldError(errcode.ConfigInvalid, field,
				"%s: no tool named %q is served; tools are: %s", field, name, strings.Join(names, ", "))
		}
	}
	p.reqs = map[string]PaymentRequirements{}
	for _, t := range tools {
		if !p.gates(t.Name) {
			continue
		}
		amount, err := ToAtomic(p.Price(t.Name), p.asset.Decimals)
		if err != nil {
			return errcode.Wrap(errcode.ConfigInvalid, err, "price of %s: %v", t.Name, err)
		}
		p.reqs[t.Name] = PaymentRequirements{
			Scheme: p.scheme, Network: p.network, Asset: p.asset.Address, Amount: amount,
			PayTo: p.payTo, MaxTimeoutSeconds: p.maxTimeout, Extra: p.asset.Extra,
		}
	}
	return nil
}

// gates reports whether the mode charges for name (before binding).
func (p *Policy) gates(name string) bool {
	switch p.mode {
	case ModeRequired:
		return true
	case ModeOn:
		return p.named[name]
	}
	return false
}

// Gated reports whether a call of the served tool name must be paid.
// Unknown tools are never gated: the server answers them with its usual
// unknown-tool error, free.
func (p *Policy) Gated(name string) bool {
	_, ok := p.reqs[name]
	return ok
}

// Price returns the decimal price of a call of name.
func (p *Policy) Price(name string) string {
	if pr, ok := p.prices[name]; ok {
		return pr
	}
	return p.price
}

// Requirements returns how to pay for a call of the gated tool name.
func (p *Policy) Requirements(name string) PaymentRequirements {
	return p.reqs[name]
}

// PaymentRequired returns the PaymentRequired of a call of the gated tool
// name, with error set to reason.
func (p *Policy) PaymentRequired(name, reason string) PaymentRequired {
	t := p.tools[name]
	res := ResourceInfo{URL: p.baseURL, Description: describe(t), MimeType: "application/json"}
	if res.URL == "" {
		res.URL = "mcp://tool/" + name
	}
	pr := PaymentRequired{X402Version: Version, Error: reason, Resource: res, Accepts: []PaymentRequirements{p.reqs[name]}}
	if p.bazaar != nil {
		p.bazaar.apply(&pr, t)
	}
	return pr
}

// describe is the resource description of tool t.
func describe(t Tool) string {
	title := t.Title
	if title == "" {
		title = t.Name
	}
	return fmt.Sprintf("%s (MCP tool %s)", title, t.Name)
}

// symbol names the asset for messages.
func (p *Policy) symbol() string {
	if p.asset.Symbol != "" {
		return p.asset.Symbol
	}
	return p.asset.Address
}

// PricedTool is one tool's line in the pricing snapshot.
type PricedTool struct {
	Name   string `json:"name"`
	Gated  bool   `json:"gated"`
	Price  string `json:"price,omitempty"`
	Amount string `json:"amount,omitempty"`
}

// Pricing is the effective price policy written to
// payments/pricing.snapshot.json.
type Pricing struct {
	X402Version       int          `json:"x402_version"`
	Mode              string       `json:"mode"`
	Scheme            string       `json:"scheme"`
	Network           string       `json:"network"`
	Asset             string       `json:"asset"`
	AssetSymbol       string       `json:"asset_symbol,omitempty"`
	Decimals          int          `json:"decimals"`
	PayTo             string       `json:"pay_to"`
	MaxTimeoutSeconds int          `json:"max_timeout_seconds"`
	DefaultPrice      string       `json:"default_price"`
	FacilitatorURL    string       `json:"facilitator_url"`
	ResourceURL       string       `json:"resource_url,omitempty"`
	Bazaar            bool         `json:"bazaar"`
	Tools             []PricedTool `json:"tools"`
}

// Pricing returns the bound policy as written to the pricing snapshot.
func (p *Policy) Pricing() Pricing {
	out := Pricing{
		X402Version: Version, Mode: p.mode, Scheme: p.scheme, Network: p.network, Asset: p.asset.Address,
		AssetSymbol: p.asset.Symbol, Decimals: p.asset.Decimals, PayTo: p.payTo, MaxTimeoutSeconds: p.maxTimeout,
		DefaultPrice: p.price, ResourceURL: p.baseURL, Bazaar: p.bazaar != nil,
	}
	names := make([]string, 0, len(p.tools))
	for n := range p.tools {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := PricedTool{Name: n, Gated: p.Gated(n)}
		if t.Gated {
			t.Price, t.Amount = p.Price(n), p.reqs[n].Amount
		}
		out.Tools = append(out.Tools, t)
	}
	return out
}
