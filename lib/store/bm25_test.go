package store

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/lexical"
	"github.com/dir2mcp/dir2mcp/lib/record"
)

// bm25Words are drawn with skewed frequencies, so queries mix terms found
// in most chunks with rare ones, as real queries do.
var bm25Words = strings.Fields(`return file error reader writer header entry archive tar zip buffer
	read write close open next size name path value type func string int bytes offset block
	ReadFileHeader parseHTTPHeader snake_case_name checksum sparse pax gnu ustar format magic`)

func bm25Text(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		// Square of a uniform index: low indexes (common words) dominate.
		f := r.Float64()
		b.WriteString(bm25Words[int(f*f*float64(len(bm25Words)))])
		b.WriteByte(' ')
	}
	return b.String()
}

// putRandom stores a document of n random chunks (with heading contexts,
// so every full-text column holds words) under rel.
func putRandom(t *testing.T, s *Store, r *rand.Rand, rel string, n int) {
	t.Helper()
	in := make([]ChunkInput, n)
	for i := range in {
		text := bm25Text(r, 5+r.Intn(60))
		in[i] = ChunkInput{Text: text, Context: bm25Text(r, r.Intn(4)), TextHash: fmt.Sprintf("h%d:%s", i, text),
			IndexKind: record.KindCode, Span: record.Lines(i*10+1, i*10+9)}
	}
	err := s.Update(context.Background(), func(tx *Tx) error {
		d := doc(rel)
		id, err := tx.UpsertDocument(d, bm25Text(r, 2))
		if err != nil {
			return err
		}
		_, err = tx.ReplaceRepresentation(DocRef{DocID: id, RelPath: rel, DocType: d.DocType},
			RepInput{Type: record.RepRawText, Hash: fmt.Sprint(r.Int63())}, in)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bm25Exprs are expressions of every shape search builds: ORed terms,
// rarer terms ANDed with all, column filters, identifiers, absent terms.
func bm25Exprs() []lexical.Expr {
	var out []lexical.Expr
	for _, q := range []string{"tar archive next entry", "return error", "ReadFileHeader", "read file header",
		"parseHTTPHeader snake_case_name", "sparse pax gnu ustar magic", "nosuchword checksum", "zip buffer offset block size"} {
		terms := lexical.Terms(q)
		out = append(out, lexical.AnyOf(terms))
		if len(terms) > 1 {
			out = append(out, lexical.Both(lexical.AnyOf(terms[len(terms)/2:]), lexical.AnyOf(terms)))
		}
		out = append(out, lexical.InColumns(lexical.AnyOf(terms), lexical.ColPath, lexical.ColTitle))
		out = append(out, lexical.InColumns(lexical.AnyOf(terms), lexical.ColBody))
		out = append(out, lexical.InColumns(lexical.Term(terms[0]), lexical.ColTitle))
	}
	return out
}

// sameRanking fails unless LexicalSearch returns exactly what FTS5's own
// bm25() ranks: the same chunks in the same order with equal scores.
func sameRanking(t *testing.T, s *Store, when string) {
	t.Helper()
	ctx := context.Background()
	filters := []ChunkFilter{{}, {PathPrefix: "pkg/a"}, {DocTypes: []string{record.DocCode}, Within: []string{"pkg/"}},
		{Match: func(p string) bool { return strings.HasSuffix(p, "1.go") }}}
	for _, e := range bm25Exprs() {
		for fi, f := range filters {
			want, err := s.LexicalSearchFTS5(ctx, e, f, DefaultFTSWeights, 25)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.LexicalSearch(ctx, e, f, DefaultFTSWeights, 25)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %s (filter %d): %d hits, FTS5 bm25 %d", when, e, fi, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s: %s (filter %d) hit %d = %+v, FTS5 bm25 %+v", when, e, fi, i, got[i], want[i])
				}
			}
		}
	}
}

// LexicalSearch ranks exactly as FTS5's bm25() does, also after writes
// change the document frequencies it caches: new chunks, edits, deletes.
func TestLexicalSearchRanksAsFTS5BM25(t *testing.T) {
	s, _ := openTest(t)
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 12; i++ {
		putRandom(t, s, r, fmt.Sprintf("pkg/%c/f%d.go", 'a'+i%3, i), 10+r.Intn(20))
	}
	sameRanking(t, s, "fresh index")
	loadLens(t, s)
	sameRanking(t, s, "cached counts and lengths")
	putRandom(t, s, r, "pkg/a/new1.go", 40)
	putRandom(t, s, r, "pkg/b/f4.go", 3) // an edit: its old chunks go
	err := s.Update(context.Background(), func(tx *Tx) error {
		_, err := tx.TombstoneDocument("pkg/c/f2.go")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sameRanking(t, s, "after writes")
	loadLens(t, s)
	sameRanking(t, s, "after writes, lengths reloaded")
	// Rowids far apart (a big file indexed and deleted): the lengths are
	// kept sparse.
	putRandom(t, s, r, "pkg/big.go", 1500)
	err = s.Update(context.Background(), func(tx *Tx) error {
		_, err := tx.TombstoneDocument("pkg/big.go")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	putRandom(t, s, r, "pkg/b/after.go", 5)
	loadLens(t, s)
	sameRanking(t, s, "sparse rowids")
}

// loadLens loads the rows' lengths of the current generation and waits.
func loadLens(t *testing.T, s *Store) {
	t.Helper()
	gen, err := s.Generation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.lens.mu.Lock()
	s.lens.notLoad = time.Time{}
	s.lens.seen, s.lens.seenAt = gen, time.Time{} // as if it had held
	s.lens.mu.Unlock()
	s.lensHandle(gen)
	s.lens.mu.Lock()
	done := s.lens.done
	s.lens.mu.Unlock()
	<-done
	if s.lensHandle(gen) == 0 {
		t.Fatal("row lengths not loaded")
	}
}

func TestPhrasesReadsBackWhatLexicalWrites(t *testing.T) {
	terms := []string{"tar", `say"hi"`, "snake_case", "x"}
	for _, c := range []struct {
		e     lexical.Expr
		terms []string
		cols  []string
	}{
		{lexical.AnyOf(terms), terms, nil},
		{lexical.Both(lexical.AnyOf(terms[:2]), lexical.AnyOf(terms)), append(terms[:2:2], terms...), nil},
		{lexical.InColumns(lexical.AnyOf(terms), lexical.ColPath, lexical.ColTitle), terms, []string{"path", "title"}},
	} {
		gotTerms, gotCols, ok := c.e.Phrases()
		if !ok || fmt.Sprint(gotTerms) != fmt.Sprint(c.terms) || fmt.Sprint(gotCols) != fmt.Sprint(c.cols) {
			t.Errorf("%s: Phrases = %q %q %v, want %q %q", c.e, gotTerms, gotCols, ok, c.terms, c.cols)
		}
	}
	if _, _, ok := lexical.Both(lexical.Term("a"), lexical.InColumns(lexical.Term("b"), lexical.ColBody)).Phrases(); ok {
		t.Error("a column filter inside the expression should not parse")
	}
}

// TermStats counts the chunks holding each term, and the live chunks.
func TestTermStatsCounts(t *testing.T) {
	s, _ := openTest(t)
	put(t, s, "a.go", "1", "alpha beta", "beta gamma", "gamma")
	put(t, s, "b.go", "1", "beta")
	for round := 0; round < 2; round++ { // counted, then cached
		dfs, live, err := s.TermStats(context.Background(), []string{"alpha", "beta", "gamma", "delta"})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int64{"alpha": 1, "beta": 3, "gamma": 2, "delta": 0}; fmt.Sprint(dfs) != fmt.Sprint(want) || live != 4 {
			t.Fatalf("round %d: TermStats = %v, %d live; want %v, 4", round, dfs, live, want)
		}
	}
	// Terms no chunk holds; a term that is no token at all.
	dfs, _, err := s.TermStats(context.Background(), []string{"zeta", "eta"})
	if err != nil || dfs["zeta"] != 0 || dfs["eta"] != 0 {
		t.Errorf("absent terms: %v, %v", dfs, err)
	}
	dfs, _, err = s.TermStats(context.Background(), []string{"--", "gamma", "x-beta"})
	if err != nil || dfs["gamma"] != 2 || dfs["--"] != 0 {
		t.Errorf("with a term of no token: %v, %v", dfs, err)
	}
}

// Searches running while a writer commits (counts and row lengths going
// stale, loads in flight) never fail, and rank as bm25() once writes stop.
func TestLexicalSearchDuringWrites(t *testing.T) {
	s, _ := openTest(t)
	r := rand.New(rand.NewSource(2))
	putRandom(t, s, r, "pkg/a/seed.go", 30)
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for g := 0; g < 3; g++ {
		go func() {
			for {
				select {
				case <-stop:
					errs <- nil
					return
				default:
				}
				for _, e := range bm25Exprs() {
					if _, err := s.LexicalSearch(context.Background(), e, ChunkFilter{}, DefaultFTSWeights, 10); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	for i := 0; i < 20; i++ {
		putRandom(t, s, r, fmt.Sprintf("pkg/b/w%d.go", i%5), 5+r.Intn(20))
		time.Sleep(15 * time.Millisecond)
	}
	close(stop)
	for g := 0; g < 3; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	sameRanking(t, s, "after concurrent writes")
	loadLens(t, s)
	sameRanking(t, s, "after concurrent writes, lengths loaded")
}
