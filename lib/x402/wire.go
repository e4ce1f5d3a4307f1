// Package x402 is dir2mcp's side of x402 v2 payments (SPEC §18): the wire
// types and header encodings, the price policy built from config, a
// facilitator client (verify, settle, supported), replay protection, the
// settlement log, and the Gate that runs one paid tool call through
// payment required → verify → run → settle.
//
// dir2mcp stays non-custodial: it never signs or moves funds; a facilitator
// verifies and settles the payment the client signed.
package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Version is the x402 protocol version dir2mcp speaks.
const Version = 2

// HTTP transport headers; each carries base64-encoded JSON.
const (
	// HeaderPaymentRequired carries a PaymentRequired on a 402 answer.
	HeaderPaymentRequired = "PAYMENT-REQUIRED"
	// HeaderPaymentSignature carries the client's PaymentPayload.
	HeaderPaymentSignature = "PAYMENT-SIGNATURE"
	// HeaderPaymentResponse carries the SettleResponse of a paid call.
	HeaderPaymentResponse = "PAYMENT-RESPONSE"
)

// MCP transport keys.
const (
	// MetaPayment is the params._meta key of a tools/call carrying a
	// PaymentPayload.
	MetaPayment = "x402/payment"
	// MetaPaymentResponse is the result._meta key (and, on a settlement
	// failure, the structuredContent key) of the SettleResponse.
	MetaPaymentResponse = "x402/payment-response"
	// MetaError is the key of the {code: 402, message, data} wrapper sent
	// as the JSON text of content[0] in a payment-required tool result.
	MetaError = "x402/error"
)

// ResourceInfo describes the paid resource.
type ResourceInfo struct {
	URL         string   `json:"url"`
	Description string   `json:"description,omitempty"`
	MimeType    string   `json:"mimeType,omitempty"`
	ServiceName string   `json:"serviceName,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	IconURL     string   `json:"iconUrl,omitempty"`
}

// PaymentRequirements is one way to pay: amount (atomic units of asset)
// to payTo on network under scheme.
type PaymentRequirements struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"`
	Asset             string         `json:"asset"`
	Amount            string         `json:"amount"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Extra             map[string]any `json:"extra"`
}

// PaymentRequired is what an unpaid (or badly paid) call gets back.
type PaymentRequired struct {
	X402Version int                   `json:"x402Version"`
	Error       string                `json:"error,omitempty"`
	Resource    ResourceInfo          `json:"resource"`
	Accepts     []PaymentRequirements `json:"accepts"`
	Extensions  map[string]any        `json:"extensions,omitempty"`
}

// PaymentPayload is the client's signed payment. Raw is the object as the
// client sent it; it is forwarded to the facilitator unchanged.
type PaymentPayload struct {
	X402Version int                 `json:"x402Version"`
	Resource    *ResourceInfo       `json:"resource,omitempty"`
	Accepted    PaymentRequirements `json:"accepted"`
	Payload     json.RawMessage     `json:"payload"`
	Extensions  map[string]any      `json:"extensions,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// VerifyResponse is a facilitator's verdict on a payment.
type VerifyResponse struct {
	IsValid        bool   `json:"isValid"`
	InvalidReason  string `json:"invalidReason,omitempty"`
	InvalidMessage string `json:"invalidMessage,omitempty"`
	Payer          string `json:"payer,omitempty"`
}

// SettleResponse is a facilitator's settlement outcome; it is what
// PAYMENT-RESPONSE and _meta["x402/payment-response"] carry.
type SettleResponse struct {
	Success      bool           `json:"success"`
	ErrorReason  string         `json:"errorReason,omitempty"`
	ErrorMessage string         `json:"errorMessage,omitempty"`
	Payer        string         `json:"payer,omitempty"`
	Transaction  string         `json:"transaction"`
	Network      string         `json:"network"`
	Amount       string         `json:"amount,omitempty"`
	Extensions   map[string]any `json:"extensions,omitempty"`
}

// SupportedKind is one (version, scheme, network) a facilitator handles.
type SupportedKind struct {
	X402Version int            `json:"x402Version"`
	Scheme      string         `json:"scheme"`
	Network     string         `json:"network"`
	Extra       map[string]any `json:"extra,omitempty"`
}

// SupportedResponse is a facilitator's GET /supported answer.
type SupportedResponse struct {
	Kinds      []SupportedKind     `json:"kinds"`
	Extensions []string            `json:"extensions"`
	Signers    map[string][]string `json:"signers"`
}

// facilitatorRequest is the body of POST /verify and POST /settle.
type facilitatorRequest struct {
	X402Version         int                 `json:"x402Version"`
	PaymentPayload      json.RawMessage     `json:"paymentPayload"`
	PaymentRequirements PaymentRequirements `json:"paymentRequirements"`
}

// EncodeHeader returns v as an x402 header value: base64 of its JSON.
func EncodeHeader(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// maxHeaderBytes bounds a decoded header value.
const maxHeaderBytes = 64 << 10

// errBadHeader reports a header value that is not base64 of a JSON object.
var errBadHeader = errors.New("not base64-encoded JSON")

// DecodeHeader decodes an x402 header value (standard base64, padding
// optional) into its JSON bytes, which must be one JSON object.
func DecodeHeader(s string) (json.RawMessage, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxHeaderBytes*4/3+4 {
		return nil, errBadHeader
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
			return nil, errBadHeader
		}
	}
	if !isJSONObject(b) {
		return nil, errBadHeader
	}
	return b, nil
}

// isJSONObject reports whether b is a single valid JSON object.
func isJSONObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}

// ParsePayload decodes a PaymentPayload from a JSON object, keeping the
// original bytes in Raw.
func ParsePayload(raw json.RawMessage) (*PaymentPayload, error) {
	if !isJSONObject(raw) {
		return nil, errors.New("payment payload is not a JSON object")
	}
	var p PaymentPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	if len(p.Payload) == 0 || p.Payload[0] != '{' {
		return nil, errors.New("payment payload has no payload object")
	}
	p.Raw = append(json.RawMessage(nil), raw...)
	return &p, nil
}
