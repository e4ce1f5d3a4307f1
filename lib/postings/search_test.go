package postings

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

var defaultWeights = [numCols]float64{2, 3, 1}

// The index ranks exactly as FTS5's bm25() does on the same rows, after
// adds, replacements and deletes spread over several segments: the same
// rows, in the same order, with bit-identical scores, for ORed terms,
// ANDed groups, column filters and kind filters.
func TestSearchMatchesFTS5(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ref := newFTSTable(t)
	var batches []batch
	next := int64(1)
	for range 4 {
		var bt batch
		for range 150 {
			bt.add = append(bt.add, randomDoc(r, next))
			next++
		}
		for range 20 { // replace some older rows
			bt.add = append(bt.add, randomDoc(r, 1+r.Int63n(next-1)))
		}
		for range 10 {
			bt.del = append(bt.del, 1+r.Int63n(next-1))
		}
		// Frequencies too large to pack (exceptions), in every column.
		big := func(w string, n int) string { return strings.TrimSpace(strings.Repeat(w+" ", n)) }
		bt.add = append(bt.add, Doc{ID: next + 2, Kind: "code", Cols: [numCols]string{big("buffer", 9), big("reader", 12), big("read", 2000) + " tls"}})
		// A row replaced twice within one batch, and one added then deleted.
		bt.add = append(bt.add, randomDoc(r, next), randomDoc(r, next))
		bt.add = append(bt.add, randomDoc(r, next+1))
		bt.del = append(bt.del, next+1)
		next += 3
		batches = append(batches, bt)
	}
	for _, bt := range batches {
		// The reference applies adds then deletes, as the builder does.
		ref.apply(t, bt)
	}
	snap := buildSnapshot(t, t.TempDir(), batches)
	var live int64
	if err := ref.db.QueryRow("SELECT count(*) FROM kinds").Scan(&live); err != nil {
		t.Fatal(err)
	}
	if snap.Rows() != live {
		t.Fatalf("Rows() = %d, reference has %d", snap.Rows(), live)
	}
	queries := []Query{
		{Groups: [][]string{{"read"}}},
		{Groups: [][]string{{"returns", "index", "first", "instance", "present"}}},
		{Groups: [][]string{{"instance", "present"}, {"returns", "index", "first", "instance", "present"}}},
		{Groups: [][]string{{"ReadFileHeader", "read_file_header"}}},
		{Groups: [][]string{{"creme", "brulee", "Crème"}}},
		{Groups: [][]string{{"reader"}}, Cols: 1 << ColTitle},
		{Groups: [][]string{{"buffer", "error"}}, Cols: 1<<ColPath | 1<<ColTitle},
		{Groups: [][]string{{"buffer", "error"}}, Cols: 1 << ColBody},
		{Groups: [][]string{{"mutex"}, {"lock", "unlock"}}, Kinds: []string{"code"}},
		{Groups: [][]string{{"the", "read", "write", "file"}}, Kinds: []string{"text"}},
		{Groups: [][]string{{"absent_word"}}},
		{Groups: [][]string{{"absent_word", "tls"}}},
	}
	for _, q := range queries {
		for _, limit := range []int{1, 10, 100, 1000} {
			q.Weights, q.Limit = defaultWeights, limit
			got, err := snap.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			want := ref.search(t, q)
			if !slices.Equal(got, want) {
				t.Errorf("%s limit %d:\n got %d hits %v\nwant %d hits %v", expr(q), limit, len(got), head(got), len(want), head(want))
			}
		}
	}
	// Document frequencies as FTS5 counts them.
	for _, term := range []string{"read", "returns", "Crème", "absent_word", "x86_64"} {
		for _, cols := range []ColumnSet{AllColumns, 1 << ColTitle, 1 << ColBody} {
			got, err := snap.DocFreq(term, cols)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(len(ref.search(t, Query{Groups: [][]string{{term}}, Cols: cols, Weights: defaultWeights, Limit: 1 << 20})))
			if got != want {
				t.Errorf("DocFreq(%q, %b) = %d, want %d", term, cols, got, want)
			}
		}
	}
}

func head(h []Hit) []Hit {
	if len(h) > 5 {
		return h[:5]
	}
	return h
}

// A segment found short while its rows are scored fails the search with
// STORE_CORRUPT and never crashes the process.
func TestDamagedWhileScoring(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	var bt batch
	for i := range 300 {
		bt.add = append(bt.add, randomDoc(r, int64(i+1)))
	}
	q := Query{Groups: [][]string{{"read", "file", "the"}}, Weights: defaultWeights, Limit: 10}
	snap := buildSnapshot(t, t.TempDir(), []batch{bt})
	if hits, err := snap.Search(q); err != nil || len(hits) == 0 {
		t.Fatalf("intact index: %d hits, %v", len(hits), err)
	}
	g := snap.segs[0]
	g.lens = g.lens[:1] // the row lengths end after the first row
	if _, err := snap.Search(q); errcode.Of(err) != errcode.StoreCorrupt {
		t.Errorf("short segment: err = %v, want STORE_CORRUPT", err)
	}
}
