package store

import (
	"context"
	"reflect"
	"strconv"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/record"
)

// EachDocState reads back every field of every file document exactly,
// whatever bytes a name or reason holds (a NUL, which SQLite's formatting
// cannot carry, sends its batch down the row-by-row path), across batches.
func TestEachDocStateReadsEveryField(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	want := map[string]DocState{}
	names := []string{"a.go", "new\nline.txt", "tab\tand:colon,comma.md", "nul\x00byte", "ünï/ç.txt", "12:34,5"}
	for i := 0; i < 5*docStateBatchRows+50; i++ { // read in ranges, several batches each
		names = append(names, "bulk/f"+strconv.Itoa(i)+".txt")
	}
	err := s.Update(ctx, func(tx *Tx) error {
		for i, n := range names {
			d := doc(n)
			d.SizeBytes, d.MtimeNs, d.DocType, d.Lang = int64(i*7), int64(i)*1e9+3, record.DocText, ""
			w := DocState{SizeBytes: d.SizeBytes, MtimeNs: d.MtimeNs, ContentHash: d.ContentHash, Status: record.StatusOK, DocType: d.DocType}
			switch i % 4 {
			case 1:
				d.Status, d.Code, d.Reason = record.StatusSkipped, "BINARY_SKIPPED", "content: is\nbinary, 3:x"
				if i == 5 {
					d.Reason = "member a\x00b.txt: unsafe name"
				}
				w.Status, w.Code, w.Reason = d.Status, d.Code, d.Reason
			case 2:
				d.DocType, d.Lang, d.ContentHash = record.DocCode, "go", ""
				w.DocType, w.Lang, w.ContentHash = d.DocType, d.Lang, ""
			case 3:
				d.Reason = "an ok document's reason is not read"
			}
			if _, err := tx.UpsertDocument(d, ""); err != nil {
				return err
			}
			want[n] = w
		}
		_, err := tx.TombstoneDocument(names[0])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	w := want[names[0]]
	w.Deleted = true
	want[names[0]] = w
	got := map[string]DocState{}
	if err := s.EachDocState(ctx, func(p string, d DocState) { got[p] = d }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for n, w := range want {
			if got[n] != w {
				t.Errorf("%q: got %+v, want %+v", n, got[n], w)
			}
		}
		t.Fatalf("read %d documents, want %d", len(got), len(want))
	}
}

// Without a NUL anywhere, a batch decodes as SQLite formats it (no row by
// row fallback), hex-coded reason included.
func TestDocStateBatchDecodes(t *testing.T) {
	ctx := context.Background()
	s, _ := openTest(t)
	err := s.Update(ctx, func(tx *Tx) error {
		d := doc("a/b.go")
		d.Status, d.Code, d.Reason = record.StatusError, "EXTRACT_FAILED", "cannot read: ünïcode, 12:3"
		_, err := tx.UpsertDocument(d, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var n, last int64
	var batch string
	if err := s.queryRow(ctx, docStateBatch, 0, docStateBatchRows, 1<<62).Scan(&n, &last, &batch); err != nil {
		t.Fatal(err)
	}
	out, err := parseDocStates(batch, n, nil)
	if err != nil || len(out) != 1 || out[0].path != "a/b.go" || out[0].Reason != "cannot read: ünïcode, 12:3" || out[0].Code != "EXTRACT_FAILED" {
		t.Fatalf("batch %q decoded to %+v, %v", batch, out, err)
	}
}
