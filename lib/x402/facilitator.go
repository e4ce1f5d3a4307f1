package x402

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Facilitator is a client of an x402 facilitator's HTTP API: POST
// /verify, POST /settle and GET /supported under URL.
type Facilitator struct {
	// URL is the facilitator base URL, e.g. https://x402.org/facilitator.
	URL string
	// Client sends the requests (nil = http.DefaultClient).
	Client *http.Client
	// Timeout bounds each request, answer included (0 = 10s).
	Timeout time.Duration
}

// Kinds of FacilitatorError.
const (
	FacilitatorTimeout     = "timeout"     // no answer in time
	FacilitatorUnreachable = "unreachable" // connection failed
	FacilitatorStatus      = "status"      // an HTTP error without a verdict
	FacilitatorMalformed   = "malformed"   // an answer that is not the documented JSON
)

// FacilitatorError is a facilitator request that produced no verdict.
// Callers fail closed on it: no verdict, no tool work.
type FacilitatorError struct {
	Op     string // verify | settle | supported
	Kind   string // timeout | unreachable | status | malformed
	Status int    // HTTP status, when there was one
	Detail string // what went wrong; never quotes the answer or request
}

func (e *FacilitatorError) Error() string {
	switch e.Kind {
	case FacilitatorTimeout:
		return fmt.Sprintf("facilitator %s timed out", e.Op)
	case FacilitatorUnreachable:
		return fmt.Sprintf("facilitator %s unreachable: %s", e.Op, e.Detail)
	case FacilitatorStatus:
		return fmt.Sprintf("facilitator %s failed with HTTP %d: %s", e.Op, e.Status, e.Detail)
	}
	return fmt.Sprintf("facilitator %s returned a malformed answer: %s", e.Op, e.Detail)
}

// Reason is the x402 reason token of e, e.g. facilitator_timeout.
func (e *FacilitatorError) Reason() string { return "facilitator_" + e.Kind }

// maxAnswer bounds a facilitator answer body.
const maxAnswer = 1 << 20

// Verify asks whether p is a valid payment of req. A verdict (valid or
// not, including a non-2xx answer that carries isValid) returns a nil
// error; anything else is a *FacilitatorError.
func (f *Facilitator) Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (VerifyResponse, error) {
	var v struct {
		IsValid        *bool   `json:"isValid"`
		InvalidReason  *string `json:"invalidReason"`
		InvalidMessage *string `json:"invalidMessage"`
		Payer          *string `json:"payer"`
	}
	status, err := f.exchange(ctx, "verify", p, req, "isValid", &v)
	if err != nil {
		return VerifyResponse{}, err
	}
	if *v.IsValid && status/100 != 2 {
		return VerifyResponse{}, &FacilitatorError{Op: "verify", Kind: FacilitatorMalformed, Status: status, Detail: "isValid true with HTTP " + fmt.Sprint(status)}
	}
	return VerifyResponse{IsValid: *v.IsValid, InvalidReason: deref(v.InvalidReason), InvalidMessage: deref(v.InvalidMessage), Payer: deref(v.Payer)}, nil
}

// Settle asks the facilitator to settle p against req. A settlement
// outcome (success or not) returns a nil error; anything else is a
// *FacilitatorError. A timeout is indeterminate: the facilitator may have
// settled after dir2mcp stopped waiting.
func (f *Facilitator) Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettleResponse, error) {
	var v struct {
		Success      *bool          `json:"success"`
		ErrorReason  *string        `json:"errorReason"`
		ErrorMessage *string        `json:"errorMessage"`
		Payer        *string        `json:"payer"`
		Transaction  *string        `json:"transaction"`
		Network      *string        `json:"network"`
		Amount       *string        `json:"amount"`
		Extensions   map[string]any `json:"extensions"`
	}
	status, err := f.exchange(ctx, "settle", p, req, "success", &v)
	if err != nil {
		return SettleResponse{}, err
	}
	malformed := func(why string) error {
		return &FacilitatorError{Op: "settle", Kind: FacilitatorMalformed, Status: status, Detail: why}
	}
	if *v.Success && status/100 != 2 {
		return SettleResponse{}, malformed("success true with HTTP " + fmt.Sprint(status))
	}
	if *v.Success && (v.Transaction == nil || v.Network == nil) {
		return SettleResponse{}, malformed("success without transaction and network")
	}
	r := SettleResponse{
		Success: *v.Success, ErrorReason: deref(v.ErrorReason), ErrorMessage: deref(v.ErrorMessage), Payer: deref(v.Payer),
		Transaction: deref(v.Transaction), Network: deref(v.Network), Amount: deref(v.Amount), Extensions: v.Extensions,
	}
	if r.Network == "" {
		r.Network = req.Network
	}
	return r, nil
}

// exchange POSTs {x402Version, paymentPayload, paymentRequirements} to
// /op and decodes into v an answer that carries field (the verdict), at
// any status. An answer without it is an HTTP error (non-2xx) or
// malformed (2xx).
func (f *Facilitator) exchange(ctx context.Context, op string, p *PaymentPayload, req PaymentRequirements, field string, v any) (int, error) {
	status, body, err := f.do(ctx, op, http.MethodPost, "/"+op, facilitatorRequest{X402Version: p.X402Version, PaymentPayload: p.Raw, PaymentRequirements: req})
	if err != nil {
		return 0, err
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m == nil || m[field] == nil || string(m[field]) == "null" {
		return status, answerError(op, status, body)
	}
	if json.Unmarshal(body, v) != nil {
		return status, &FacilitatorError{Op: op, Kind: FacilitatorMalformed, Status: status, Detail: shape(body)}
	}
	return status, nil
}

// Supported returns the payment kinds the facilitator handles.
func (f *Facilitator) Supported(ctx context.Context) (SupportedResponse, error) {
	status, body, err := f.do(ctx, "supported", http.MethodGet, "/supported", nil)
	if err != nil {
		return SupportedResponse{}, err
	}
	if status/100 != 2 {
		return SupportedResponse{}, &FacilitatorError{Op: "supported", Kind: FacilitatorStatus, Status: status, Detail: shape(body)}
	}
	var s SupportedResponse
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) != nil || probe["kinds"] == nil || json.Unmarshal(body, &s) != nil {
		return SupportedResponse{}, &FacilitatorError{Op: "supported", Kind: FacilitatorMalformed, Status: status, Detail: shape(body)}
	}
	return s, nil
}

// Supports reports whether s lists x402 v2 with scheme on network.
func (s SupportedResponse) Supports(scheme, network string) bool {
	for _, k := range s.Kinds {
		if k.X402Version == Version && k.Scheme == scheme && k.Network == network {
			return true
		}
	}
	return false
}

// do sends one request under the timeout and returns the status and the
// (bounded) body; transport failures are *FacilitatorError.
func (f *Facilitator) do(ctx context.Context, op, method, path string, body any) (int, []byte, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, &FacilitatorError{Op: op, Kind: FacilitatorMalformed, Detail: "encoding request: " + err.Error()}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(f.URL, "/")+path, rd)
	if err != nil {
		return 0, nil, &FacilitatorError{Op: op, Kind: FacilitatorUnreachable, Detail: clean(err.Error())}
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, transportError(ctx, op, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return 0, nil, transportError(ctx, op, err)
	}
	if len(b) > maxAnswer {
		return 0, nil, &FacilitatorError{Op: op, Kind: FacilitatorMalformed, Status: resp.StatusCode, Detail: "answer larger than 1 MiB"}
	}
	return resp.StatusCode, b, nil
}

func transportError(ctx context.Context, op string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return &FacilitatorError{Op: op, Kind: FacilitatorTimeout}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &FacilitatorError{Op: op, Kind: FacilitatorUnreachable, Detail: clean(err.Error())}
}

// answerError classifies an answer without the expected verdict field: an
// HTTP error status, or a malformed success.
func answerError(op string, status int, body []byte) error {
	if status/100 != 2 {
		return &FacilitatorError{Op: op, Kind: FacilitatorStatus, Status: status, Detail: shape(body)}
	}
	return &FacilitatorError{Op: op, Kind: FacilitatorMalformed, Status: status, Detail: shape(body)}
}

// shape describes an unexpected answer without quoting it (a
// facilitator error page may echo the request, signature included).
func shape(b []byte) string {
	var v any
	switch {
	case len(bytes.TrimSpace(b)) == 0:
		return "empty answer"
	case json.Unmarshal(b, &v) != nil:
		return fmt.Sprintf("answer is not JSON (%d bytes)", len(b))
	}
	if _, ok := v.(map[string]any); !ok {
		return "answer is not a JSON object"
	}
	return "JSON object without the documented fields"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
