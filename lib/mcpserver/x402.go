package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/dir2mcp/dir2mcp/lib/x402"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnablePayments makes the tool calls g gates paid (x402, SPEC §18): it
// prices the served tools (CONFIG_INVALID when the config names a tool
// that is not served) and installs the gate on tools/call, for every
// transport. Every other method (initialize, ping, tools/list, resources,
// prompts, completion, logging) is never gated. Call it once, before
// serving, and pass g to mcphttp.Options.Payments so the HTTP transport
// also speaks x402 over HTTP.
func (s *Server) EnablePayments(g *x402.Gate) error {
	srv := s.MCP()
	var tools []x402.Tool
	for _, t := range s.tools() {
		tools = append(tools, x402.Tool{Name: t.tool.Name, Title: t.tool.Title, Description: t.tool.Description, InputSchema: t.tool.InputSchema})
	}
	if err := g.Bind(tools); err != nil {
		return err
	}
	srv.AddReceivingMiddleware(paymentMiddleware(g))
	return nil
}

// paymentMiddleware runs a gated tools/call as a paid call: no payment →
// the PaymentRequired tool result, no tool work; a payment → verified
// with the facilitator before the tool runs, settled after it succeeded,
// and the result returned only once settled, with the settlement in
// result._meta["x402/payment-response"]. A tool that fails (isError, an
// error, a cancelled call) is not charged.
func paymentMiddleware(g *x402.Gate) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || call.Params == nil || !g.Gated(call.Params.Name) {
				return next(ctx, method, req)
			}
			name, transport := call.Params.Name, transportOf(call)
			raw, paid := paymentOf(call)
			if !paid {
				return PaymentResult(g.Require(name, transport)), nil
			}
			ticket, fail := g.Authorize(ctx, name, raw, transport)
			if fail != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return PaymentResult(fail), nil
			}
			res, err := next(ctx, method, req)
			out := toolResult(res)
			switch {
			case ctx.Err() != nil:
				g.Cancel(ticket, "cancelled")
				return nil, ctx.Err()
			case err != nil || out == nil:
				g.Cancel(ticket, "protocol_error")
				return res, err
			case out.IsError:
				g.Cancel(ticket, toolErrorCode(out))
				return res, nil
			}
			settled, fail := g.Settle(ctx, ticket)
			if fail != nil {
				return PaymentResult(fail), nil // no result without settlement
			}
			meta := make(mcp.Meta, len(out.Meta)+1)
			for k, v := range out.Meta {
				meta[k] = v
			}
			meta[x402.MetaPaymentResponse] = settled
			out.Meta = meta
			return out, nil
		}
	}
}

// transportOf names the transport a call came over, for events and logs.
func transportOf(call *mcp.CallToolRequest) string {
	if ex := call.GetExtra(); ex != nil && ex.Header != nil {
		return "http"
	}
	return "stdio"
}

// paymentOf returns the payment a call carries: params._meta["x402/payment"]
// (MCP transport), else the PAYMENT-SIGNATURE header (HTTP transport). An
// undecodable header still counts as a payment (Authorize rejects it as
// malformed) so a client learns why it was refused.
func paymentOf(call *mcp.CallToolRequest) (json.RawMessage, bool) {
	if v, ok := call.Params.Meta[x402.MetaPayment]; ok && v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return json.RawMessage("null"), true
		}
		return b, true
	}
	if ex := call.GetExtra(); ex != nil && ex.Header != nil {
		if h := ex.Header.Get(x402.HeaderPaymentSignature); h != "" {
			raw, err := x402.DecodeHeader(h)
			if err != nil {
				return json.RawMessage("null"), true
			}
			return raw, true
		}
	}
	return nil, false
}

// toolErrorCode is the canonical code of a failed tool result.
func toolErrorCode(r *mcp.CallToolResult) string {
	if c := resultCode(r); c != "TOOL_ERROR" {
		return c
	}
	return "tool_error"
}

// DetailKey is the structuredContent key of a payment failure's canonical
// error and x402 metadata ({code, message, retryable, stage, reason}).
const DetailKey = "dir2mcp/error"

// PaymentFailure is the structuredContent of a payment failure: the
// PaymentRequired object itself (x402 MCP transport), plus the failed
// settlement when there was one and dir2mcp's canonical error.
type PaymentFailure struct {
	x402.PaymentRequired
	Settlement *x402.SettleResponse `json:"x402/payment-response,omitempty"`
	Detail     x402.Detail          `json:"dir2mcp/error"`
}

// PaymentResult is the tool result of a payment failure per the x402 MCP
// transport: isError, the PaymentRequired as structuredContent, and
// content[0].text the JSON {"x402/error": {code: 402, message, data}}.
func PaymentResult(f *x402.Failure) *mcp.CallToolResult {
	text, _ := json.Marshal(map[string]any{x402.MetaError: map[string]any{
		"code": 402, "message": string(f.Err.Code) + ": " + f.Err.Message, "data": f.Required,
	}})
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(text)}},
		StructuredContent: PaymentFailure{PaymentRequired: f.Required, Settlement: f.Settlement, Detail: f.Detail()},
	}
}
