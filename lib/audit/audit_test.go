package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func readAll(t *testing.T, path string, f Filter) []Record {
	t.Helper()
	var out []Record
	if err := Read(path, f, func(r Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteCloseRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "audit.jsonl")
	l, err := Open(Options{Path: path, MaxBytes: 1 << 20, Keep: 3})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 1000 {
		r := Record{Time: t0.Add(time.Duration(i) * time.Second), Tool: "dir2mcp.search", Token: "ci", Transport: "http"}
		if i%10 == 0 {
			r.Tool, r.Error, r.Token = "dir2mcp.open_file", "OUT_OF_SCOPE", "docs"
		}
		l.Write(r)
	}
	if err := l.Close(); err != nil { // every queued record is written before Close returns
		t.Fatal(err)
	}
	if got := readAll(t, path, Filter{}); len(got) != 1000 || !got[999].Time.Equal(t0.Add(999*time.Second)) {
		t.Fatalf("read %d records", len(got))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("audit log mode %v, want 0600", fi.Mode().Perm())
	}
	for f, want := range map[*Filter]int{
		{Tool: "open_file"}:                             100,
		{Tool: "dir2mcp.search"}:                        900,
		{Token: "docs", Errors: true}:                   100,
		{Errors: true, Tool: "search"}:                  0,
		{Since: t0.Add(990 * time.Second)}:              10,
		{Since: t0.Add(500 * time.Second), Token: "ci"}: 450,
	} {
		if got := len(readAll(t, path, *f)); got != want {
			t.Errorf("filter %+v: %d records, want %d", *f, got, want)
		}
	}
	l.Write(Record{Tool: "late"}) // after Close: ignored, no panic
}

func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(Options{Path: path, MaxBytes: 4096, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		l.Write(Record{Time: time.Unix(int64(i), 0), Tool: fmt.Sprintf("t%03d", i), ArgsSHA256: strings.Repeat("a", 64)})
		if i%50 == 0 {
			time.Sleep(time.Millisecond) // let batches form and rotate
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := Files(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[0] != path+".2" || files[2] != path {
		t.Fatalf("files = %v, want .2, .1 and the log", files)
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Error("kept more rotated files than Keep")
	}
	recs := readAll(t, path, Filter{})
	for i := 1; i < len(recs); i++ {
		if recs[i].Time.Before(recs[i-1].Time) {
			t.Fatalf("records out of order at %d", i)
		}
	}
	if last := recs[len(recs)-1]; last.Tool != "t399" || len(recs) >= 400 {
		t.Errorf("read %d records ending in %s: want the newest kept and the oldest rotated away", len(recs), last.Tool)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Size() > 4096 {
			t.Errorf("%s is %d bytes, past the limit", f, fi.Size())
		}
	}
}

// Two writers on one file (two server processes on one state directory)
// lose and tear no line.
func TestConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var wg sync.WaitGroup
	for w := range 2 {
		l, err := Open(Options{Path: path, MaxBytes: 64 << 10, Keep: 50})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				l.Write(Record{Tool: fmt.Sprintf("w%d", w), Session: fmt.Sprint(i)})
			}
			l.Close()
		}()
	}
	wg.Wait()
	files, _ := Files(path)
	lines := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, ln := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			var r Record
			if json.Unmarshal([]byte(ln), &r) != nil {
				t.Fatalf("torn line %q", ln)
			}
			lines++
		}
	}
	if lines != 4000 {
		t.Errorf("%d lines in %d files, want 4000", lines, len(files))
	}
}

func TestDigestIsCanonical(t *testing.T) {
	a := Digest(json.RawMessage(`{"query":"x","k":5}`))
	b := Digest(json.RawMessage(`{ "k": 5, "query": "x" }`))
	c := Digest(json.RawMessage(`{"k":6,"query":"x"}`))
	if a != b || a == c || len(a) != 64 {
		t.Errorf("digests %s %s %s", a, b, c)
	}
}

func TestKeptArgs(t *testing.T) {
	mask := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }
	got := KeptArgs(json.RawMessage(`{"query":"password hunter2","k":5,"in":"title","doc_types":["md","hunter2"],"schema":{"type":"object"},"long":"`+strings.Repeat("é", 300)+`","flag":true}`), mask)
	if got["query"] != "password [REDACTED]" || got["k"] != json.Number("5") || got["flag"] != true {
		t.Errorf("KeptArgs = %v", got)
	}
	if l := got["doc_types"].([]string); l[1] != "[REDACTED]" {
		t.Errorf("list = %v", l)
	}
	if _, ok := got["schema"]; ok {
		t.Error("objects are left out")
	}
	if s := got["long"].(string); len(s) > MaxArgChars+3 || !strings.HasSuffix(s, "…") || !json.Valid([]byte(`"`+s+`"`)) {
		t.Errorf("long argument cut to %d bytes", len(s))
	}
}
