package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/x402"
)

// checkPayments validates the x402 price policy before anything starts
// (exit 2 naming the key): the asset resolves, every price converts to its
// atomic units, Bazaar metadata follows the Bazaar rules. The config layer
// has already checked the network (CAIP-2), price syntax, facilitator URL
// and pay_to; tool names are checked when the server binds the gate.
func checkPayments(cfg *config.Config) error {
	if cfg.X402.Mode == x402.ModeOff {
		return nil
	}
	_, err := x402.NewPolicy(cfg.X402, cfg.Server.MCPPath)
	return err
}

// openPayments opens the x402 gate of the config and installs it on srv;
// nil when x402 is off, in which case srv is left exactly as it was.
func openPayments(e *env, srv *mcpserver.Server) (*x402.Gate, error) {
	cfg := e.cfg
	if cfg.X402.Mode == x402.ModeOff {
		return nil, nil
	}
	g, err := x402.Open(x402.Options{Config: cfg.X402, MCPPath: cfg.Server.MCPPath, Dir: e.dir, Events: e.ev})
	if err != nil {
		return nil, err
	}
	if err := srv.EnablePayments(g); err != nil {
		g.Close()
		return nil, err
	}
	tc := cfg.X402.RoutePolicy.ToolsCall
	scope := "every tool call"
	if cfg.X402.Mode == x402.ModeOn {
		scope = strings.Join(chargedTools(cfg), ", ")
	}
	e.ev.Emit(events.Info, record.EvNotice, map[string]any{
		"message": fmt.Sprintf("x402 payments %s: %s charged (default price %s on %s, pay to %s, facilitator %s)",
			cfg.X402.Mode, scope, tc.Price, tc.Network, tc.PayTo, x402.RedactURL(cfg.X402.FacilitatorURL)),
	})
	return g, nil
}

// chargedTools lists the tools mode on charges, sorted.
func chargedTools(cfg *config.Config) []string {
	tc := cfg.X402.RoutePolicy.ToolsCall
	seen := map[string]bool{}
	var out []string
	for _, t := range tc.Tools {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for t := range tc.Prices {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// probePayments asks the facilitator's /supported whether it handles the
// configured scheme and network, and warns when it does not or cannot be
// reached. It never blocks serving: paid calls fail closed on their own.
func probePayments(ctx context.Context, e *env, g *x402.Gate) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := g.Probe(ctx); err != nil && ctx.Err() == nil {
		e.ev.Emit(events.Warn, record.EvNotice, map[string]any{"message": "x402: " + err.Error()})
	}
}
