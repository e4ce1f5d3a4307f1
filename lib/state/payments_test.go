package state

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPaymentsDirIsPrivate(t *testing.T) {
	d := Dir{Path: filepath.Join(t.TempDir(), ".dir2mcp")}
	if err := d.EnsurePayments(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(d.Join(PaymentsDir))
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("payments dir: %v %v", fi, err)
	}
	if got, want := d.Payments(SettlementLog), filepath.Join(d.Path, "payments", "settlement.log"); got != want {
		t.Errorf("Payments(SettlementLog) = %s, want %s", got, want)
	}
}
