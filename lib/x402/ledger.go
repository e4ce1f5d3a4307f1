package x402

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
)

// Outcomes recorded in the settlement log.
const (
	OutcomeVerified   = "verified"    // the facilitator accepted the payment; the tool runs
	OutcomeRejected   = "rejected"    // refused before any tool work (invalid, replayed, facilitator down)
	OutcomeSettled    = "settled"     // paid: the result was delivered
	OutcomeNotSettled = "not_settled" // the tool failed or the call was cancelled: nothing charged
	OutcomeSettleFail = "settle_failed"
)

// Entry is one line of payments/settlement.log. It holds what an operator
// needs to reconcile payments (who paid what for which tool, and the
// transaction) and never the payment payload or its signature.
type Entry struct {
	TS          string `json:"ts"`
	Outcome     string `json:"outcome"`
	Tool        string `json:"tool"`
	Transport   string `json:"transport,omitempty"`
	PaymentID   string `json:"payment_id,omitempty"`
	Scheme      string `json:"scheme,omitempty"`
	Network     string `json:"network,omitempty"`
	Asset       string `json:"asset,omitempty"`
	Amount      string `json:"amount,omitempty"`
	PayTo       string `json:"pay_to,omitempty"`
	Payer       string `json:"payer,omitempty"`
	Transaction string `json:"transaction,omitempty"`
	Stage       Stage  `json:"stage,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// Ledger appends entries to the settlement log (append-only JSONL, 0600).
// It is safe for concurrent use.
type Ledger struct {
	mu sync.Mutex
	f  *os.File
}

// OpenLedger opens (creating) the settlement log at path for appending.
func OpenLedger(path string) (*Ledger, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return &Ledger{f: f}, nil
}

// Append writes e as one line, stamped now when e.TS is empty.
func (l *Ledger) Append(e Entry) error {
	if e.TS == "" {
		e.TS = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("settlement log closed")
	}
	_, err = l.f.Write(append(b, '\n'))
	return err
}

// Close closes the log.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// WritePricing atomically writes p as indented JSON to path (0600).
func WritePricing(path string, p Pricing) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}

// RedactURL returns u without userinfo, query or fragment, which may
// carry credentials, for logs and snapshots.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(invalid URL)"
	}
	p.User, p.RawQuery, p.Fragment, p.ForceQuery = nil, "", "", false
	return p.String()
}
