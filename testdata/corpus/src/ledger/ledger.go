// Package ledger keeps the books for the demo corpus.
package ledger

import (
	"errors"
	"sort"
)

// Entry is one line of a ledger.
type Entry struct {
	ID     string
	Amount int64 // cents
	Memo   string
}

// ErrUnbalanced is returned when debits and credits disagree.
var ErrUnbalanced = errors.New("ledger: debits and credits do not balance")

// ReconcileLedgerEntries reconciles the quarterly ledger entries against the
// bank statement and returns the entries that have no matching statement line.
func ReconcileLedgerEntries(entries, statement []Entry) ([]Entry, error) {
	seen := make(map[string]int64, len(statement))
	for _, s := range statement {
		seen[s.ID] += s.Amount
	}
	var missing []Entry
	var total int64
	for _, e := range entries {
		total += e.Amount
		if seen[e.ID] != e.Amount {
			missing = append(missing, e)
		}
	}
	if total != 0 {
		return missing, ErrUnbalanced
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].ID < missing[j].ID })
	return missing, nil
}
