package x402

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// answering starts a server answering every request with status and body,
// recording the last request body.
func answering(t *testing.T, status int, body string, last *map[string]any) *Facilitator {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if last != nil {
			b, _ := io.ReadAll(r.Body)
			json.Unmarshal(b, last)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return &Facilitator{URL: srv.URL + "/", Timeout: 2 * time.Second}
}

var (
	testReq     = PaymentRequirements{Scheme: "exact", Network: "eip155:84532", Asset: "0xA", Amount: "1000", PayTo: "0xB", MaxTimeoutSeconds: 60, Extra: map[string]any{}}
	testPayload = &PaymentPayload{X402Version: 2, Raw: json.RawMessage(`{"x402Version":2,"accepted":{},"payload":{"signature":"0x12"}}`)}
)

func kindOf(err error) string {
	var fe *FacilitatorError
	if errors.As(err, &fe) {
		return fe.Kind
	}
	return ""
}

func TestVerifySendsTheDocumentedRequest(t *testing.T) {
	var got map[string]any
	f := answering(t, 200, `{"isValid":true,"payer":"0xP"}`, &got)
	v, err := f.Verify(context.Background(), testPayload, testReq)
	if err != nil || !v.IsValid || v.Payer != "0xP" {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	if got["x402Version"] != 2.0 || got["paymentPayload"].(map[string]any)["payload"] == nil ||
		got["paymentRequirements"].(map[string]any)["amount"] != "1000" {
		t.Errorf("request body = %v", got)
	}
}

func TestVerifyVerdictsAndFailures(t *testing.T) {
	cases := []struct {
		status    int
		body      string
		valid     bool
		reason    string
		errorKind string
	}{
		{200, `{"isValid":false,"invalidReason":"insufficient_funds","payer":"0xP"}`, false, "insufficient_funds", ""},
		{400, `{"isValid":false,"invalidReason":"invalid_scheme"}`, false, "invalid_scheme", ""},
		{500, `<html>oops</html>`, false, "", FacilitatorStatus},
		{503, `{"error":"maintenance"}`, false, "", FacilitatorStatus},
		{200, `{"valid":true}`, false, "", FacilitatorMalformed},
		{200, `{"isValid":"yes"}`, false, "", FacilitatorMalformed},
		{200, `not json`, false, "", FacilitatorMalformed},
		{500, `{"isValid":true}`, false, "", FacilitatorMalformed},
	}
	for _, c := range cases {
		f := answering(t, c.status, c.body, nil)
		v, err := f.Verify(context.Background(), testPayload, testReq)
		if kindOf(err) != c.errorKind || (err == nil && (v.IsValid != c.valid || v.InvalidReason != c.reason)) {
			t.Errorf("%d %s: verdict %+v err %v", c.status, c.body, v, err)
		}
	}
}

func TestSettleOutcomesAndFailures(t *testing.T) {
	f := answering(t, 200, `{"success":true,"transaction":"0xT","network":"eip155:84532","payer":"0xP"}`, nil)
	s, err := f.Settle(context.Background(), testPayload, testReq)
	if err != nil || !s.Success || s.Transaction != "0xT" {
		t.Fatalf("settle = %+v %v", s, err)
	}
	f = answering(t, 400, `{"success":false,"errorReason":"insufficient_funds","transaction":"","network":"eip155:84532"}`, nil)
	if s, err = f.Settle(context.Background(), testPayload, testReq); err != nil || s.Success || s.ErrorReason != "insufficient_funds" {
		t.Errorf("declined settle = %+v %v", s, err)
	}
	for _, c := range []struct {
		status int
		body   string
		kind   string
	}{
		{200, `{"success":true}`, FacilitatorMalformed},
		{502, `bad gateway`, FacilitatorStatus},
		{500, `{"success":true,"transaction":"0x","network":"n"}`, FacilitatorMalformed},
	} {
		f := answering(t, c.status, c.body, nil)
		if _, err := f.Settle(context.Background(), testPayload, testReq); kindOf(err) != c.kind {
			t.Errorf("%d %s: %v, want %s", c.status, c.body, err, c.kind)
		}
	}
}

func TestFacilitatorTimeoutAndUnreachable(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	f := &Facilitator{URL: srv.URL, Timeout: 50 * time.Millisecond}
	if _, err := f.Verify(context.Background(), testPayload, testReq); kindOf(err) != FacilitatorTimeout {
		t.Errorf("slow facilitator: %v", err)
	}
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	f = &Facilitator{URL: url, Timeout: time.Second}
	_, err := f.Verify(context.Background(), testPayload, testReq)
	if kindOf(err) != FacilitatorUnreachable {
		t.Errorf("closed port: %v", err)
	}
	if fe := err.(*FacilitatorError); fe.Reason() != "facilitator_unreachable" {
		t.Errorf("reason = %s", fe.Reason())
	}
}

func TestErrorsNeverQuoteTheAnswer(t *testing.T) {
	// A facilitator error page echoing the request must not carry the
	// signature into dir2mcp's errors (and from there into logs).
	f := answering(t, 500, `{"error":"bad request","echo":{"signature":"0xSECRETSIGNATURE"}}`, nil)
	_, err := f.Verify(context.Background(), testPayload, testReq)
	if err == nil || strings.Contains(err.Error(), "SECRETSIGNATURE") {
		t.Errorf("error %v quotes the answer", err)
	}
}

func TestSupported(t *testing.T) {
	f := answering(t, 200, `{"kinds":[{"x402Version":2,"scheme":"exact","network":"eip155:84532"}],"extensions":[],"signers":{}}`, nil)
	s, err := f.Supported(context.Background())
	if err != nil || !s.Supports("exact", "eip155:84532") || s.Supports("exact", "eip155:8453") {
		t.Errorf("supported = %+v %v", s, err)
	}
	f = answering(t, 200, `{}`, nil)
	if _, err := f.Supported(context.Background()); kindOf(err) != FacilitatorMalformed {
		t.Errorf("empty supported: %v", err)
	}
}
