// Package state knows the layout of a state directory (SPEC §4): where each
// file lives, the writer locks, the bearer token, and the small JSON files
// (connection.json, corpus.json) written for users and tools.
package state

import (
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Dir is a state directory.
type Dir struct{ Path string }

// DefaultName is the state directory's name under the root.
const DefaultName = ".dir2mcp"

// Resolve returns the state dir: stateDir if set, else <root>/.dir2mcp.
func Resolve(root, stateDir string) Dir {
	if stateDir == "" {
		stateDir = filepath.Join(root, DefaultName)
	}
	if abs, err := filepath.Abs(stateDir); err == nil {
		stateDir = abs
	}
	return Dir{Path: stateDir}
}

// File names inside the state directory.
const (
	SnapshotFile   = ".dir2mcp.yaml.snapshot"
	ConnectionFile = "connection.json"
	TokenFile      = "secret.token"
	CorpusFile     = "corpus.json"
	IngestLog      = "ingest.log"
	// AuditLog is the audit log of tool calls (rotated as audit.jsonl.1 …).
	AuditLog = "audit.jsonl"
)

// Payment files (SPEC §4.1), under PaymentsDir; they exist only when x402
// payments are on.
const (
	PaymentsDir = "payments"
	// PricingSnapshot is the effective price policy, rewritten at start.
	PricingSnapshot = "pricing.snapshot.json"
	// SettlementLog is the append-only JSONL of verification and
	// settlement outcomes (no signatures, no payloads).
	SettlementLog = "settlement.log"
	// PaymentReplayLog is the append-only JSONL of consumed payment ids
	// that keeps a payment from buying a second call after a restart.
	PaymentReplayLog = "replay.jsonl"
)

// Payments returns the path of name inside the payments directory.
func (d Dir) Payments(name string) string { return d.Join(PaymentsDir, name) }

// EnsurePayments creates the payments directory (0700: it records who
// paid).
func (d Dir) EnsurePayments() error {
	if err := os.MkdirAll(d.Join(PaymentsDir), 0o700); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "cannot create payments directory %s: %v", d.Join(PaymentsDir), err)
	}
	return nil
}

// Join returns a path inside the state directory.
func (d Dir) Join(elem ...string) string {
	return filepath.Join(append([]string{d.Path}, elem...)...)
}

// Ensure creates the state directory and its subdirectories, private to
// the user (0700, files 0600) and with a .gitignore that keeps it out of
// git; an existing state directory is tightened the same way (see
// makePrivate).
func (d Dir) Ensure() error {
	_, err := os.Stat(d.Path)
	created := os.IsNotExist(err)
	for _, sub := range []string{"", "locks", "cache"} {
		if err := os.MkdirAll(d.Join(sub), DirMode); err != nil {
			return errcode.Wrap(errcode.StoreCorrupt, err, "cannot create state directory %s: %v", d.Join(sub), err)
		}
	}
	return d.makePrivate(created)
}
