package cli

import (
	"os"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/state"
)

// One owner of connection.json at a time: a second claim is refused while
// the first holds it, succeeds once the first releases it, and release
// removes the file only for the owner.
func TestConnectionHasOneOwner(t *testing.T) {
	d := state.Dir{Path: t.TempDir()}
	conn := state.NewConnection("http://127.0.0.1:1/mcp", state.Token{})
	var first, second connOwner
	if ok, err := first.take(d, conn); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if ok, err := second.take(d, conn); ok || errcode.Of(err) != errcode.IndexLocked {
		t.Fatalf("second claim while held: %v %v", ok, err)
	}
	if err := second.release(d); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Join(state.ConnectionFile)); err != nil {
		t.Fatal("a non-owner's release removed connection.json")
	}
	if err := first.release(d); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Join(state.ConnectionFile)); !os.IsNotExist(err) {
		t.Fatal("the owner's release left connection.json")
	}
	var third connOwner
	if ok, err := third.take(d, conn); !ok || err != nil {
		t.Fatalf("claim after release: %v %v", ok, err)
	}
	third.release(d)
	if ok, err := third.take(d, conn); ok || err != nil {
		t.Fatalf("claim after shutdown: %v %v", ok, err)
	}
}
