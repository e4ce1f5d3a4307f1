// Package x402test provides an in-process x402 facilitator for tests: an
// httptest server speaking the facilitator wire format (POST /verify,
// POST /settle, GET /supported) that checks payments like a real one
// would (amount, recipient, expiry, one settlement per authorization
// nonce), records every call in order, and can be switched to fail in the
// ways real facilitators do.
package x402test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/x402"
)

// Behaviour selects how the facilitator answers.
type Behaviour int

const (
	// Normal verifies and settles by the payment's content.
	Normal Behaviour = iota
	// Down answers 503 with an HTML error page.
	Down
	// Malformed answers 200 with JSON lacking the documented fields.
	Malformed
	// Slow waits Delay before answering normally.
	Slow
	// RejectSettle verifies normally but declines every settlement.
	RejectSettle
	// DownOnSettle verifies normally but answers 500 to /settle.
	DownOnSettle
)

// Call is one request the facilitator received.
type Call struct {
	Op   string // verify | settle | supported
	At   time.Time
	Body map[string]any // decoded request body (nil for supported)
}

// Facilitator is a running fake facilitator. Close it when done.
type Facilitator struct {
	*httptest.Server
	// Network is what /supported lists and settlements report.
	Network string
	// Delay is the Slow behaviour's wait.
	Delay time.Duration
	// Transaction is the hash settlements return (a fixed fake hash).
	Transaction string

	mu        sync.Mutex
	behaviour Behaviour
	calls     []Call
	settled   map[string]bool // authorization nonces already settled
}

// New starts a facilitator for network (e.g. eip155:84532).
func New(network string) *Facilitator {
	f := &Facilitator{Network: network, Delay: 2 * time.Second, settled: map[string]bool{},
		Transaction: "0x" + hex.EncodeToString(make([]byte, 31)) + "ab"}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, "verify") })
	mux.HandleFunc("POST /settle", func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, "settle") })
	mux.HandleFunc("GET /supported", func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, "supported") })
	f.Server = httptest.NewServer(mux)
	return f
}

// Set switches the behaviour.
func (f *Facilitator) Set(b Behaviour) {
	f.mu.Lock()
	f.behaviour = b
	f.mu.Unlock()
}

// Calls returns the calls received so far, in order.
func (f *Facilitator) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Count returns how many calls of op were received.
func (f *Facilitator) Count(op string) int {
	n := 0
	for _, c := range f.Calls() {
		if c.Op == op {
			n++
		}
	}
	return n
}

// Ops returns the operations received, in order.
func (f *Facilitator) Ops() []string {
	var ops []string
	for _, c := range f.Calls() {
		ops = append(ops, c.Op)
	}
	return ops
}

func (f *Facilitator) serve(w http.ResponseWriter, r *http.Request, op string) {
	var body map[string]any
	if op != "supported" {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "bad json", http.StatusBadRequest)
			return
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, Call{Op: op, At: time.Now(), Body: body})
	b := f.behaviour
	f.mu.Unlock()
	switch {
	case b == Down, b == DownOnSettle && op == "settle":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, "<html><body>upstream unavailable</body></html>")
		return
	case b == Malformed:
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		return
	case b == Slow:
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	switch op {
	case "supported":
		writeJSON(w, http.StatusOK, x402.SupportedResponse{
			Kinds:      []x402.SupportedKind{{X402Version: x402.Version, Scheme: "exact", Network: f.Network}},
			Extensions: []string{"bazaar"}, Signers: map[string][]string{"eip155:*": {"0x0000000000000000000000000000000000000001"}},
		})
	case "verify":
		ok, reason, payer := check(body)
		if !ok {
			writeJSON(w, http.StatusOK, x402.VerifyResponse{IsValid: false, InvalidReason: reason, Payer: payer})
			return
		}
		writeJSON(w, http.StatusOK, x402.VerifyResponse{IsValid: true, Payer: payer})
	case "settle":
		ok, reason, payer := check(body)
		if ok && b == RejectSettle {
			ok, reason = false, "insufficient_funds"
		}
		if ok {
			nonce := authNonce(body)
			f.mu.Lock()
			if f.settled[nonce] {
				ok, reason = false, "nonce_already_used"
			}
			f.settled[nonce] = true
			f.mu.Unlock()
		}
		if !ok {
			writeJSON(w, http.StatusOK, x402.SettleResponse{Success: false, ErrorReason: reason, Payer: payer, Network: f.Network})
			return
		}
		writeJSON(w, http.StatusOK, x402.SettleResponse{Success: true, Payer: payer, Transaction: f.Transaction, Network: f.Network})
	}
}

// check verifies a facilitator request like the exact EVM scheme would,
// minus the signature arithmetic: the authorization pays the required
// amount to payTo and has not expired.
func check(body map[string]any) (ok bool, reason, payer string) {
	req, _ := body["paymentRequirements"].(map[string]any)
	pp, _ := body["paymentPayload"].(map[string]any)
	inner, _ := pp["payload"].(map[string]any)
	auth, _ := inner["authorization"].(map[string]any)
	if req == nil || auth == nil {
		return false, "invalid_payload", ""
	}
	payer, _ = auth["from"].(string)
	if sig, _ := inner["signature"].(string); len(sig) < 10 {
		return false, "invalid_exact_evm_payload_signature", payer
	}
	if auth["to"] != req["payTo"] {
		return false, "invalid_exact_evm_payload_recipient_mismatch", payer
	}
	if auth["value"] != req["amount"] {
		return false, "invalid_exact_evm_payload_authorization_value", payer
	}
	vb, _ := strconv.ParseInt(fmt.Sprint(auth["validBefore"]), 10, 64)
	if vb <= time.Now().Unix() {
		return false, "invalid_exact_evm_payload_authorization_valid_before", payer
	}
	return true, "", payer
}

func authNonce(body map[string]any) string {
	pp, _ := body["paymentPayload"].(map[string]any)
	inner, _ := pp["payload"].(map[string]any)
	auth, _ := inner["authorization"].(map[string]any)
	n, _ := auth["nonce"].(string)
	return n
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Payer is the fake paying address of Pay.
const Payer = "0x857b06519E91e3A54538791bDbb0E22373e36b66"

// Pay returns a PaymentPayload (JSON) paying req the way an x402 v2 EVM
// client does: an EIP-3009 authorization with a fresh random nonce and a
// signature-shaped hex string. The fake facilitator accepts it; a real one
// would not (the signature is not real).
func Pay(req x402.PaymentRequirements) json.RawMessage {
	nonce := make([]byte, 32)
	sig := make([]byte, 65)
	rand.Read(nonce)
	rand.Read(sig)
	now := time.Now().Unix()
	b, _ := json.Marshal(map[string]any{
		"x402Version": x402.Version,
		"resource":    map[string]any{"url": "mcp://tool/test"},
		"accepted":    req,
		"payload": map[string]any{
			"signature": "0x" + hex.EncodeToString(sig),
			"authorization": map[string]any{
				"from": Payer, "to": req.PayTo, "value": req.Amount,
				"validAfter": strconv.FormatInt(now-600, 10), "validBefore": strconv.FormatInt(now+int64(req.MaxTimeoutSeconds), 10),
				"nonce": "0x" + hex.EncodeToString(nonce),
			},
		},
	})
	return b
}

// Signature returns the signature inside a payment made by Pay, for
// asserting it never leaks into logs.
func Signature(payment json.RawMessage) string {
	var p struct {
		Payload struct {
			Signature string `json:"signature"`
		} `json:"payload"`
	}
	_ = json.Unmarshal(payment, &p)
	return p.Payload.Signature
}

// PayTo is the receiving address of Config's payment requirements.
const PayTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// Config is the default x402 configuration with payments in mode through
// f (1 s timeout), paid on f's network to PayTo; in mode on, gated names
// the charged tools.
func (f *Facilitator) Config(mode string, gated ...string) config.X402Config {
	c := config.Default().X402
	c.Mode, c.FacilitatorURL = mode, f.URL
	c.FacilitatorTimeout = config.Duration(time.Second)
	c.RoutePolicy.ToolsCall.Network = f.Network
	c.RoutePolicy.ToolsCall.PayTo = PayTo
	c.RoutePolicy.ToolsCall.Tools = gated
	return c
}
