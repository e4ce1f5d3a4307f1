package x402

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestReplaySurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay.jsonl")
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	r, err := OpenReplay(path, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"p:1", "s:1"}
	if err := r.Reserve(keys); err != nil {
		t.Fatal(err)
	}
	if err := r.Reserve([]string{"s:1"}); !errors.Is(err, ErrInUse) {
		t.Errorf("concurrent reuse: %v, want ErrInUse", err)
	}
	if err := r.Commit(keys, clk.t.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := r.Reserve([]string{"p:other", "s:1"}); !errors.Is(err, ErrReplayed) {
		t.Errorf("reuse after commit: %v, want ErrReplayed", err)
	}
	r.Close()

	// A restart remembers it; a released (unspent) payment is not remembered.
	r, err = OpenReplay(path, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reserve([]string{"s:1"}); !errors.Is(err, ErrReplayed) {
		t.Errorf("after restart: %v, want ErrReplayed", err)
	}
	if err := r.Reserve([]string{"p:2"}); err != nil {
		t.Fatal(err)
	}
	r.Release([]string{"p:2"})
	if err := r.Reserve([]string{"p:2"}); err != nil {
		t.Errorf("released payment refused: %v", err)
	}
	r.Close()

	// Past its expiry a payment is forgotten.
	clk.t = clk.t.Add(2 * time.Hour)
	r, _ = OpenReplay(path, clk.now)
	defer r.Close()
	if r.Len() != 0 {
		t.Errorf("expired entries kept: %d", r.Len())
	}
}

func TestReplayIsBoundedAndCompacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay.jsonl")
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	r, err := OpenReplay(path, clk.now)
	if err != nil {
		t.Fatal(err)
	}
	r.Max = 100
	for i := 0; i < 3000; i++ {
		k := []string{"p:" + itoa(i)}
		r.Reserve(k)
		if err := r.Commit(k, clk.t.Add(time.Duration(i+1)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if r.Len() != 100 {
		t.Errorf("Len = %d, want the cap 100", r.Len())
	}
	// The latest-expiring payments are the ones kept.
	if err := r.Reserve([]string{"p:2999"}); !errors.Is(err, ErrReplayed) {
		t.Errorf("newest entry forgotten: %v", err)
	}
	r.Close()
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n > 2*100+1024+1 {
		t.Errorf("file holds %d lines for 100 live entries: not compacted", n)
	}
}

func TestReplayToleratesATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "replay.jsonl")
	exp := time.Now().Add(time.Hour).Unix()
	os.WriteFile(path, []byte(`{"k":"s:a","exp":`+itoa(int(exp))+"}\n"+`{"k":"s:b","ex`), 0o600)
	r, err := OpenReplay(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reserve([]string{"s:a"}); !errors.Is(err, ErrReplayed) {
		t.Errorf("entry before the torn line lost: %v", err)
	}
	r.Reserve([]string{"s:c"})
	r.Commit([]string{"s:c"}, time.Now().Add(time.Hour))
	r.Close()
	r, _ = OpenReplay(path, nil)
	defer r.Close()
	if err := r.Reserve([]string{"s:c"}); !errors.Is(err, ErrReplayed) {
		t.Errorf("entry appended after a torn line lost: %v", err)
	}
}

func TestReplayExpiry(t *testing.T) {
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	r := &Replay{now: clk.now}
	if got := r.Expiry(0); !got.Equal(clk.t.Add(replayRetention)) {
		t.Errorf("unknown validity: %v", got)
	}
	if got := r.Expiry(clk.t.Unix() + 60); !got.Equal(clk.t.Add(60*time.Second + replayGrace)) {
		t.Errorf("validBefore+grace: %v", got)
	}
	if got := r.Expiry(clk.t.Unix() + 1e9); !got.Equal(clk.t.Add(replayRetention)) {
		t.Errorf("far future capped: %v", got)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
