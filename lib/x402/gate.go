package x402

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/state"
)

// Payment events (SPEC §3.2).
const (
	EvPaymentRequired = "payment_required"
	EvPaymentVerified = "payment_verified"
	EvPaymentSettled  = "payment_settled"
	EvPaymentFailed   = "payment_failed"
)

// StageTool marks a verified payment left unsettled because the tool
// failed or the call was cancelled (nothing is charged).
const StageTool Stage = "tool"

// Options configure a Gate.
type Options struct {
	Config config.X402Config
	// MCPPath is the MCP endpoint path, appended to the resource base URL.
	MCPPath string
	// Dir is the state directory; payments/ is created in it.
	Dir    state.Dir
	Events *events.Emitter
	// Client sends facilitator requests (nil = http.DefaultClient).
	Client *http.Client
	// Now is the clock (nil = time.Now).
	Now func() time.Time
}

// Gate runs paid tool calls: Require answers an unpaid call, Authorize
// checks a payment (well-formed, matching, unused, verified by the
// facilitator) before any tool work, and after the tool ran Settle settles
// it, or Cancel releases it when the tool failed. It emits the payment_*
// events and writes payments/settlement.log and
// payments/pricing.snapshot.json. It is safe for concurrent use.
type Gate struct {
	policy *Policy
	fac    *Facilitator
	replay *Replay
	ledger *Ledger
	ev     *events.Emitter
	dir    state.Dir
	facURL string
}

// Ticket is a verified payment waiting for its tool call to finish.
type Ticket struct {
	tool      string
	transport string
	payload   *PaymentPayload
	req       PaymentRequirements
	id        identity
	payer     string
}

// PaymentID is the short hash naming the payment in logs.
func (t *Ticket) PaymentID() string { return t.id.id }

// Payer is the paying address the facilitator reported.
func (t *Ticket) Payer() string { return t.payer }

// Open builds the policy of o.Config (CONFIG_INVALID on a bad price,
// asset or Bazaar metadata) and opens the payments directory: the replay
// log and the settlement log.
func Open(o Options) (*Gate, error) {
	p, err := NewPolicy(o.Config, o.MCPPath)
	if err != nil {
		return nil, err
	}
	if err := o.Dir.EnsurePayments(); err != nil {
		return nil, err
	}
	replay, err := OpenReplay(o.Dir.Payments(state.PaymentReplayLog), o.Now)
	if err != nil {
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "open payment replay log: %v", err)
	}
	ledger, err := OpenLedger(o.Dir.Payments(state.SettlementLog))
	if err != nil {
		replay.Close()
		return nil, errcode.Wrap(errcode.StoreCorrupt, err, "open settlement log: %v", err)
	}
	ev := o.Events
	if ev == nil {
		ev = events.Discard()
	}
	return &Gate{
		policy: p, replay: replay, ledger: ledger, ev: ev, dir: o.Dir, facURL: RedactURL(o.Config.FacilitatorURL),
		fac: &Facilitator{URL: o.Config.FacilitatorURL, Client: o.Client, Timeout: o.Config.FacilitatorTimeout.Std()},
	}, nil
}

// Bind prices the served tools (CONFIG_INVALID when the config names a
// tool that is not served) and writes payments/pricing.snapshot.json.
func (g *Gate) Bind(tools []Tool) error {
	if err := g.policy.Bind(tools); err != nil {
		return err
	}
	pr := g.policy.Pricing()
	pr.FacilitatorURL = g.facURL
	if err := WritePricing(g.dir.Payments(state.PricingSnapshot), pr); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "write pricing snapshot: %v", err)
	}
	return nil
}

// Close closes the payment logs.
func (g *Gate) Close() error {
	return errors.Join(g.replay.Close(), g.ledger.Close())
}

// Gated reports whether a call of tool must be paid.
func (g *Gate) Gated(tool string) bool { return g.policy.Gated(tool) }

// Require answers a call of a gated tool that carries no payment: the
// PaymentRequired to pay with. It emits payment_required.
func (g *Gate) Require(tool, transport string) *Failure {
	req := g.policy.Requirements(tool)
	f := g.failure(tool, StageRequired, ReasonPaymentRequired, true,
		fmt.Sprintf("payment required: %s costs %s %s on %s; pay with x402 v2 and retry (HTTP: PAYMENT-SIGNATURE header; MCP: params._meta[%q])",
			tool, g.policy.Price(tool), g.policy.symbol(), req.Network, MetaPayment))
	g.ev.Emit(events.Info, EvPaymentRequired, map[string]any{
		"tool": tool, "transport": transport, "scheme": req.Scheme, "network": req.Network, "asset": req.Asset,
		"amount": req.Amount, "price": g.policy.Price(tool), "pay_to": req.PayTo, "message": f.Err.Message,
	})
	return f
}

// Authorize checks the payment raw (a PaymentPayload JSON object) for a
// call of the gated tool, before any tool work: well-formed x402 v2, equal
// to the tool's requirements, not used before nor in use, and accepted by
// the facilitator's /verify. A facilitator that times out, fails or
// answers malformed fails closed. On success the payment stays reserved
// until Settle or Cancel.
func (g *Gate) Authorize(ctx context.Context, tool string, raw json.RawMessage, transport string) (*Ticket, *Failure) {
	req := g.policy.Requirements(tool)
	p, err := ParsePayload(raw)
	if err != nil {
		return nil, g.reject(tool, transport, nil, StagePayload, ReasonInvalidPayload, false,
			fmt.Sprintf("payment is not a valid x402 PaymentPayload (%s)", clean(err.Error())))
	}
	if p.X402Version != Version {
		return nil, g.reject(tool, transport, nil, StageMatch, ReasonUnsupportedVersion, false,
			fmt.Sprintf("x402Version %d is not supported; this server speaks x402 v%d", p.X402Version, Version))
	}
	if !matches(req, p.Accepted) {
		return nil, g.reject(tool, transport, nil, StageMatch, ReasonNoMatch, false,
			fmt.Sprintf("payment does not match the requirements of %s: accepted must equal the offered scheme, network, asset, amount %s, payTo and maxTimeoutSeconds", tool, req.Amount))
	}
	t := &Ticket{tool: tool, transport: transport, payload: p, req: req, id: paymentIdentity(p)}
	if err := g.replay.Reserve(t.id.keys); err != nil {
		reason, msg := ReasonReplayed, "this payment already paid for a call; sign a new payment for each call"
		if errors.Is(err, ErrInUse) {
			reason, msg = ReasonInUse, "this payment is paying for another call in progress; sign a new payment for each call"
		}
		return nil, g.reject(tool, transport, t, StageReplay, reason, false, msg)
	}
	vr, err := g.fac.Verify(ctx, p, req)
	if err != nil {
		g.replay.Release(t.id.keys)
		var fe *FacilitatorError
		if !errors.As(err, &fe) {
			fe = &FacilitatorError{Op: "verify", Kind: FacilitatorUnreachable, Detail: clean(err.Error())}
		}
		return nil, g.reject(tool, transport, t, StageFacilitator, fe.Reason(), true,
			fmt.Sprintf("payment could not be verified (%s); no tool work was done and nothing was charged; retry later", fe.Error()))
	}
	if !vr.IsValid {
		g.replay.Release(t.id.keys)
		t.payer = vr.Payer
		msg := "payment rejected by the facilitator: " + reasonToken(vr.InvalidReason, ReasonVerifyFailed)
		if m := clean(vr.InvalidMessage); m != "" {
			msg += " (" + m + ")"
		}
		return nil, g.reject(tool, transport, t, StageVerify, reasonToken(vr.InvalidReason, ReasonVerifyFailed), false, msg)
	}
	t.payer = vr.Payer
	g.record(t, OutcomeVerified, "", "", "")
	g.ev.Emit(events.Info, EvPaymentVerified, g.data(t, map[string]any{
		"message": fmt.Sprintf("payment %s verified for %s", t.id.id, tool),
	}))
	return t, nil
}

// Settle settles t's payment after its tool ran successfully. The payment
// is first recorded as used (durably), so it can never buy a second call,
// even if settlement fails or the server restarts. A settlement failure
// returns a Failure carrying the facilitator's outcome: the caller must
// then withhold the tool's result.
func (g *Gate) Settle(ctx context.Context, t *Ticket) (SettleResponse, *Failure) {
	if err := g.replay.Commit(t.id.keys, g.replay.Expiry(t.id.validBefore)); err != nil {
		g.replay.Release(t.id.keys)
		f := g.reject(t.tool, t.transport, t, StageSettle, ReasonReplayStore, false,
			"the payment could not be recorded as used ("+clean(err.Error())+"); the result was withheld and nothing was charged")
		return SettleResponse{}, f
	}
	sr, err := g.fac.Settle(context.WithoutCancel(ctx), t.payload, t.req)
	if err != nil {
		var fe *FacilitatorError
		if !errors.As(err, &fe) {
			fe = &FacilitatorError{Op: "settle", Kind: FacilitatorUnreachable, Detail: clean(err.Error())}
		}
		msg := fmt.Sprintf("settlement failed (%s); the result was withheld", fe.Error())
		if fe.Kind == FacilitatorTimeout || fe.Kind == FacilitatorStatus {
			msg += "; the facilitator may still settle it: check the payer's transactions before paying again"
		} else {
			msg += " and nothing was charged"
		}
		out := SettleResponse{Success: false, ErrorReason: fe.Reason(), Network: t.req.Network, Payer: t.payer}
		return SettleResponse{}, g.settleFailure(t, fe.Reason(), msg, &out)
	}
	if !sr.Success {
		reason := reasonToken(sr.ErrorReason, ReasonSettleFailed)
		msg := "settlement declined by the facilitator: " + reason
		if m := clean(sr.ErrorMessage); m != "" {
			msg += " (" + m + ")"
		}
		sr.ErrorReason = reason
		return SettleResponse{}, g.settleFailure(t, reason, msg+"; the result was withheld and nothing was charged", &sr)
	}
	if sr.Payer != "" {
		t.payer = sr.Payer
	}
	g.record(t, OutcomeSettled, "", "", sr.Transaction)
	g.ev.Emit(events.Info, EvPaymentSettled, g.data(t, map[string]any{
		"transaction": sr.Transaction, "settled_network": sr.Network,
		"message": fmt.Sprintf("payment %s settled for %s: %s", t.id.id, t.tool, sr.Transaction),
	}))
	return sr, nil
}

// Cancel releases t's payment unsettled: the tool failed (why is its
// error code) or the call was cancelled. Nothing is charged and the
// payment may pay for another call.
func (g *Gate) Cancel(t *Ticket, why string) {
	g.replay.Release(t.id.keys)
	g.record(t, OutcomeNotSettled, StageTool, why, "")
	g.ev.Emit(events.Info, EvPaymentFailed, g.data(t, map[string]any{
		"stage": string(StageTool), "reason": why,
		"message": fmt.Sprintf("payment %s not settled: %s did not succeed (%s); nothing was charged", t.id.id, t.tool, why),
	}))
}

// Probe asks the facilitator's /supported whether it handles the
// configured scheme and network under x402 v2.
func (g *Gate) Probe(ctx context.Context) error {
	s, err := g.fac.Supported(ctx)
	if err != nil {
		return err
	}
	if !s.Supports(g.policy.scheme, g.policy.network) {
		return fmt.Errorf("facilitator %s does not list x402 v%d scheme %s on %s in /supported; paid calls will be rejected",
			g.facURL, Version, g.policy.scheme, g.policy.network)
	}
	return nil
}

// matches reports whether a client's accepted requirements are ours: core
// fields equal, and every extra field of ours present and equal (a client
// may add scheme-specific extra fields).
func matches(ours, theirs PaymentRequirements) bool {
	if ours.Scheme != theirs.Scheme || ours.Network != theirs.Network || ours.Asset != theirs.Asset ||
		ours.Amount != theirs.Amount || ours.PayTo != theirs.PayTo || ours.MaxTimeoutSeconds != theirs.MaxTimeoutSeconds {
		return false
	}
	for k, v := range ours.Extra {
		a, _ := json.Marshal(v)
		b, _ := json.Marshal(theirs.Extra[k])
		if string(a) != string(b) {
			return false
		}
	}
	return true
}

// failure builds a Failure with the tool's PaymentRequired.
func (g *Gate) failure(tool string, stage Stage, reason string, retryable bool, msg string) *Failure {
	return &Failure{
		Stage: stage, Reason: reason,
		Err:      &errcode.Error{Code: errcode.Unauthorized, Message: msg, Retryable: retryable},
		Required: g.policy.PaymentRequired(tool, reason),
	}
}

// reject builds a pre-tool Failure, emits payment_failed and, once a
// payment identity is known (t != nil), records it in the settlement log.
func (g *Gate) reject(tool, transport string, t *Ticket, stage Stage, reason string, retryable bool, msg string) *Failure {
	f := g.failure(tool, stage, reason, retryable, msg)
	data := map[string]any{"tool": tool, "transport": transport}
	if t != nil {
		data = g.data(t, nil)
		outcome := OutcomeRejected
		if stage == StageSettle {
			outcome = OutcomeSettleFail
		}
		g.record(t, outcome, stage, reason, "")
	}
	data["stage"], data["reason"], data["code"], data["message"] = string(stage), reason, string(f.Err.Code), msg
	g.ev.Emit(events.Warn, EvPaymentFailed, data)
	return f
}

// settleFailure is the Failure of a settlement that did not succeed.
func (g *Gate) settleFailure(t *Ticket, reason, msg string, out *SettleResponse) *Failure {
	f := g.reject(t.tool, t.transport, t, StageSettle, reason, false, msg)
	f.Settlement = out
	return f
}

// data is the event payload describing t; extra entries are added.
func (g *Gate) data(t *Ticket, extra map[string]any) map[string]any {
	d := map[string]any{
		"tool": t.tool, "transport": t.transport, "payment_id": t.id.id, "scheme": t.req.Scheme,
		"network": t.req.Network, "asset": t.req.Asset, "amount": t.req.Amount, "pay_to": t.req.PayTo,
	}
	if t.payer != "" {
		d["payer"] = t.payer
	}
	for k, v := range extra {
		d[k] = v
	}
	return d
}

// record appends t's outcome to the settlement log. A write failure is
// reported as a warning event; it does not change the call's outcome.
func (g *Gate) record(t *Ticket, outcome string, stage Stage, reason, tx string) {
	err := g.ledger.Append(Entry{
		Outcome: outcome, Tool: t.tool, Transport: t.transport, PaymentID: t.id.id, Scheme: t.req.Scheme,
		Network: t.req.Network, Asset: t.req.Asset, Amount: t.req.Amount, PayTo: t.req.PayTo, Payer: t.payer,
		Transaction: tx, Stage: stage, Reason: reason,
	})
	if err != nil {
		g.ev.Emit(events.Warn, "notice", map[string]any{"message": "writing payments/settlement.log: " + clean(err.Error())})
	}
}
