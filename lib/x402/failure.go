package x402

import (
	"net/http"
	"strings"
	"unicode"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Stage names where a paid call stopped.
type Stage string

// Stages of a paid call, in order.
const (
	StageRequired    Stage = "required"    // no payment was sent
	StagePayload     Stage = "payload"     // the payment is not valid x402 JSON
	StageMatch       Stage = "match"       // it pays for something else (or another version)
	StageReplay      Stage = "replay"      // it was already used (or is in use)
	StageVerify      Stage = "verify"      // the facilitator rejected it
	StageFacilitator Stage = "facilitator" // the facilitator could not be asked (timeout, 5xx, malformed)
	StageSettle      Stage = "settle"      // settlement after the tool run failed
)

// Reasons are machine-readable causes (x402 error strings); facilitator
// verdicts pass their own (e.g. insufficient_funds) through.
const (
	ReasonPaymentRequired    = "payment_required"
	ReasonInvalidPayload     = "invalid_payload"
	ReasonUnsupportedVersion = "unsupported_x402_version"
	ReasonNoMatch            = "no_matching_payment_requirements"
	ReasonReplayed           = "payment_already_used"
	ReasonInUse              = "payment_in_use"
	ReasonVerifyFailed       = "verification_failed"
	ReasonSettleFailed       = "settlement_failed"
	ReasonReplayStore        = "replay_store_unavailable"
)

// Failure is why a paid tool call was refused or its result withheld. It
// carries the canonical error (UNAUTHORIZED: the call is not paid for),
// the PaymentRequired to retry with, and, after a failed settlement, the
// facilitator's settlement response.
type Failure struct {
	Stage  Stage
	Reason string
	// Err is the canonical error; Retryable says whether the same request
	// (same payment) may succeed later.
	Err *errcode.Error
	// Required lists how to pay; Required.Error is Reason.
	Required PaymentRequired
	// Settlement is set when settlement failed (success false).
	Settlement *SettleResponse
}

// FacilitatorFailed reports whether the facilitator could not be asked
// (timeout, unreachable, HTTP error, malformed answer).
func (f *Failure) FacilitatorFailed() bool { return facilitatorFailed(f.Stage, f.Reason) }

func facilitatorFailed(stage Stage, reason string) bool {
	return stage == StageFacilitator || strings.HasPrefix(reason, "facilitator_")
}

func (f *Failure) Error() string { return f.Err.Error() }

// HTTPStatus is the status an HTTP client gets for f (see
// Detail.HTTPStatus).
func (f *Failure) HTTPStatus() int { return f.Detail().HTTPStatus() }

// Detail is the x402 failure metadata of a tool error: stage and reason
// next to the canonical code.
type Detail struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
	Stage     Stage  `json:"stage"`
	Reason    string `json:"reason"`
}

// HTTPStatus is the status an HTTP client gets for a failure: 400 for a
// malformed payment, 502 when the facilitator could not be asked (verify
// or settle), 500 when the payment could not be recorded as used, 402
// otherwise.
func (d Detail) HTTPStatus() int {
	switch {
	case d.Reason == ReasonReplayStore:
		return http.StatusInternalServerError
	case facilitatorFailed(d.Stage, d.Reason):
		return http.StatusBadGateway
	case d.Stage == StagePayload:
		return http.StatusBadRequest
	}
	return http.StatusPaymentRequired
}

// Detail returns f's canonical error with its x402 metadata.
func (f *Failure) Detail() Detail {
	return Detail{Code: string(f.Err.Code), Message: f.Err.Message, Retryable: f.Err.Retryable, Stage: f.Stage, Reason: f.Reason}
}

// clean makes text from a facilitator or client safe to show and log: one
// printable line of at most 200 characters.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, strings.ToValidUTF8(s, " "))
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "…"
	}
	return s
}

// reasonToken turns a facilitator reason into an x402-style token
// (lower_snake, at most 64 characters), or fallback when empty.
func reasonToken(s, fallback string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == ':':
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	if t := strings.Trim(b.String(), "_"); t != "" {
		return t
	}
	return fallback
}
