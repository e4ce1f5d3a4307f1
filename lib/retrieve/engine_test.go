package retrieve_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/retrieve"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/textsplit"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

var corpus = map[string]string{
	"tar/reader.go": `package tar

// Next advances to the next entry in the tar archive.
// The Header.Size determines how many bytes can be read for the next file.
func (tr *Reader) Next() (*Header, error) {
	return tr.next()
}

// readHeader reads the next block header and assumes that the underlying reader
// is already aligned to a block boundary.
func (tr *Reader) readHeader() (*Header, *block, error) {
	return nil, nil, nil
}
`,
	"geo/distance.py": `import math

def haversine_distance(lat1, lon1, lat2, lon2):
    """Great-circle distance in kilometres between two coordinates."""
    return 2 * 6371 * math.asin(1)
`,
	"docs/archive.md": "# Archives\n\nA tar archive is a sequence of entries, each with a header and file data.\n\nThe reader walks entries one by one.\n",
	"docs/dome.md":    "# Dome\n\nClose the dome when the wind is strong.\n",
	"notes/misc.txt":  "The quarterly budget review is on Friday.\n",
	// purge is called three times in one file and defined once in another.
	"cleanup/run.py":  "from cleanup.tree import purge\n\ndef main(paths):\n    purge(paths[0])\n    purge(paths[1])\n    purge(paths[2])\n",
	"cleanup/tree.py": "import os\n\n\ndef purge(path):\n    os.remove(path)\n",
}

type env struct {
	eng   *retrieve.Engine
	st    *store.Store
	dir   state.Dir
	root  string
	embs  map[string]embed.Embedder
	cfg   *config.Config
	close func()
}

func setup(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	for p, c := range corpus {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte(c), 0o644)
	}
	dir := state.Resolve(root, "")
	dir.Ensure()
	ctx := context.Background()
	st, err := store.Open(ctx, dir.Path, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hashing.New(256)
	embs := map[string]embed.Embedder{record.KindText: h, record.KindCode: h}
	cfg := config.Default()
	if err := (&indexer.Job{Config: cfg, Root: root, Dir: dir, Store: st, Embedders: embs}).Run(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &env{st: st, dir: dir, root: root, embs: embs, cfg: cfg, eng: openEngine(t, dir, st, embs, cfg)}
}

// openEngine is an Engine over the index in dir, its vector files and
// keyword index loaded; they are closed when the test ends.
func openEngine(t *testing.T, dir state.Dir, st *store.Store, embs map[string]embed.Embedder, cfg *config.Config) *retrieve.Engine {
	t.Helper()
	vecs := map[string]*vector.Reloader{}
	for _, k := range []string{record.KindText, record.KindCode} {
		r := vector.NewReloader(dir.Join(vector.FileName(k)), vector.ReloaderOptions{})
		<-r.Ready()
		vecs[k] = r
	}
	kw := postings.NewReloader(dir.Path, 0, false)
	<-kw.Ready()
	t.Cleanup(func() {
		for _, r := range vecs {
			r.Close()
		}
		kw.Close()
	})
	return &retrieve.Engine{Store: st, Vectors: vecs, Keywords: kw, Embedders: embs, Tuning: cfg.Search, Oversample: 5}
}

func paths(r retrieve.Result) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.RelPath)
	}
	return out
}

func search(t *testing.T, e *env, req retrieve.Request) retrieve.Result {
	t.Helper()
	r, err := e.eng.Search(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestQuestionReachesCodeAndText(t *testing.T) {
	e := setup(t)
	// A plain-language question must still find code (auto searches both indexes).
	r := search(t, e, retrieve.Request{Query: "how is the distance between two coordinates computed?"})
	if len(r.Hits) == 0 || r.Hits[0].RelPath != "geo/distance.py" {
		t.Errorf("hits %v", paths(r))
	}
	if r.IndexUsed != "both" {
		t.Errorf("index_used %q", r.IndexUsed)
	}
	r = search(t, e, retrieve.Request{Query: "when should the dome be closed"})
	if len(r.Hits) == 0 || r.Hits[0].RelPath != "docs/dome.md" {
		t.Errorf("hits %v", paths(r))
	}
}

func TestExactIdentifierWins(t *testing.T) {
	e := setup(t)
	r := search(t, e, retrieve.Request{Query: "readHeader"})
	if len(r.Hits) == 0 || r.Hits[0].RelPath != "tar/reader.go" {
		t.Fatalf("hits %v", paths(r))
	}
	// The citation is focused on the lines that mention it.
	h := r.Hits[0]
	if h.Span.Kind != record.SpanLines || h.Span.StartLine > 9 || h.Span.EndLine < 9 || h.Span.EndLine-h.Span.StartLine > 11 {
		t.Errorf("span %+v should be a focused window around line 9", h.Span)
	}
	if !strings.Contains(h.Snippet, "readHeader") {
		t.Errorf("snippet %q", h.Snippet)
	}
}

func TestFilters(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		req  retrieve.Request
		want func(string) bool
	}{
		{retrieve.Request{Query: "tar archive entry header", PathPrefix: "docs/"}, func(p string) bool { return strings.HasPrefix(p, "docs/") }},
		{retrieve.Request{Query: "tar archive entry header", FileGlob: "*.go"}, func(p string) bool { return strings.HasSuffix(p, ".go") }},
		{retrieve.Request{Query: "tar archive entry header", DocTypes: []string{"md"}}, func(p string) bool { return strings.HasSuffix(p, ".md") }},
		{retrieve.Request{Query: "tar archive entry header", Index: "code"}, func(p string) bool { return strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".py") }},
	} {
		r := search(t, e, tc.req)
		if len(r.Hits) == 0 {
			t.Errorf("%+v: no hits", tc.req)
		}
		for _, p := range paths(r) {
			if !tc.want(p) {
				t.Errorf("%+v returned %s", tc.req, p)
			}
		}
	}
}

func TestSearchInTitleOrContent(t *testing.T) {
	e := setup(t)
	// "Archives" is the title of docs/archive.md; "archive" also appears in the body of tar/reader.go.
	r := search(t, e, retrieve.Request{Query: "archives", In: retrieve.InTitle})
	if len(r.Hits) != 1 || r.Hits[0].RelPath != "docs/archive.md" {
		t.Errorf("in=title: %v", paths(r))
	}
	r = search(t, e, retrieve.Request{Query: "dome", In: retrieve.InContent, Mode: retrieve.ModeLexical})
	if len(r.Hits) != 1 || r.Hits[0].RelPath != "docs/dome.md" {
		t.Errorf("in=content: %v", paths(r))
	}
	r = search(t, e, retrieve.Request{Query: "distance", In: retrieve.InTitle})
	if len(r.Hits) != 1 || r.Hits[0].RelPath != "geo/distance.py" {
		t.Errorf("in=title matches paths too: %v", paths(r))
	}
}

func TestInvalidRequests(t *testing.T) {
	e := setup(t)
	for _, tc := range []struct {
		req   retrieve.Request
		code  errcode.Code
		field string
	}{
		{retrieve.Request{Query: "  "}, errcode.MissingField, "query"},
		{retrieve.Request{Query: "x", K: 51}, errcode.InvalidRange, "k"},
		{retrieve.Request{Query: "x", Index: "images"}, errcode.InvalidField, "index"},
		{retrieve.Request{Query: "x", FileGlob: "[a-"}, errcode.InvalidField, "file_glob"},
		{retrieve.Request{Query: "x", DocTypes: []string{"spreadsheet"}}, errcode.InvalidField, "doc_types"},
		{retrieve.Request{Query: "x", PathPrefix: "../etc"}, errcode.PathOutsideRoot, "path_prefix"},
		{retrieve.Request{Query: "x", In: "everywhere"}, errcode.InvalidField, "in"},
	} {
		_, err := e.eng.Search(context.Background(), tc.req)
		var ce *errcode.Error
		if ce = errcode.As(err); err == nil || ce.Code != tc.code || ce.Field != tc.field {
			t.Errorf("%+v: got %v (field %q), want %s on %s", tc.req, err, ce.Field, tc.code, tc.field)
		}
	}
}

// Deleting a document hides its chunks at once, even from a vector snapshot
// that still holds them (tombstones + oversampling, SPEC §6.3), and from
// refs warmed before the delete (WarmRefs, as a server does).
func TestDeletedChunksNeverReturned(t *testing.T) {
	for _, warmed := range []bool{false, true} {
		e := setup(t)
		if warmed {
			if err := e.eng.WarmRefs(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.st.Update(context.Background(), func(tx *store.Tx) error {
			_, err := tx.TombstoneDocument("docs/dome.md")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{retrieve.ModeHybrid, retrieve.ModeVector, retrieve.ModeLexical} {
			r := search(t, e, retrieve.Request{Query: "close the dome when the wind is strong", Mode: mode})
			if slices.Contains(paths(r), "docs/dome.md") {
				t.Errorf("%s (refs warmed: %v): deleted file returned", mode, warmed)
			}
		}
	}
}

// Vectors of another model are never compared with the query: the search
// falls back to the lexical channel and says why.
func TestModelMismatchSkipsVectors(t *testing.T) {
	e := setup(t)
	other, _ := hashing.New(128)
	e.eng.Embedders = map[string]embed.Embedder{record.KindText: other, record.KindCode: other}
	r := search(t, e, retrieve.Request{Query: "tar archive"})
	if r.VectorHits != 0 || len(r.VectorSkipped) != 2 || len(r.Hits) == 0 {
		t.Errorf("vector hits %d, skipped %v, hits %v", r.VectorHits, r.VectorSkipped, paths(r))
	}
}

func TestCitations(t *testing.T) {
	for sp, want := range map[record.Span]string{
		record.Lines(3, 9):                "[a/b.go:L3-L9]",
		record.Page(2):                    "[a/b.go#p=2]",
		record.Time(65000, 95000):         "[a/b.go@t=01:05-01:35]",
		record.Time(3_600_000, 3_661_000): "[a/b.go@t=1:00:00-1:01:01]",
	} {
		if got := retrieve.Cite("a/b.go", sp); got != want {
			t.Errorf("Cite(%+v) = %s, want %s", sp, got, want)
		}
	}
}

func TestTestFilesAreDemotedUnlessAsked(t *testing.T) {
	for p, want := range map[string]bool{
		"tar/reader_test.go": true, "pkg/test_utils.py": true, "src/app.spec.ts": true, "a/testdata/x.go": true,
		"tests/helpers.py": true, "tar/reader.go": false, "docs/testing.md": false, "latest/x.go": false,
		"a/b/fixtures/c/d.txt": true, "spec/x.rb": true, "a/__tests__/b.js": true, "test": false, "x/spec": false,
		"a/testdata": false, "contest/a.go": false, "a/tests2/b.go": false,
	} {
		if got := retrieve.IsTestFile(p); got != want {
			t.Errorf("IsTestFile(%q) = %v", p, got)
		}
	}
}

func TestOneNameFindsItsDefinition(t *testing.T) {
	e := setup(t)
	for _, mode := range []string{retrieve.ModeHybrid, retrieve.ModeLexical} {
		r := search(t, e, retrieve.Request{Query: "purge", Mode: mode})
		if len(r.Hits) == 0 || r.Hits[0].RelPath != "cleanup/tree.py" {
			t.Fatalf("%s: hits %v, want the definition in cleanup/tree.py first", mode, paths(r))
		}
		if h := r.Hits[0]; h.Span.StartLine != 4 || !strings.HasPrefix(h.Snippet, "def purge(path):") {
			t.Errorf("%s: span %+v snippet %q, want the def line first", mode, h.Span, h.Snippet)
		}
	}
	r := search(t, e, retrieve.Request{Query: "purge", Explain: true})
	for _, c := range r.Candidates {
		if want := c.RelPath == "cleanup/tree.py"; c.Defines != want {
			t.Errorf("%s: defines = %v, want %v", c.RelPath, c.Defines, want)
		}
	}
}

// A chunk only BM25 found is fused with its real cosine, not as if it were
// unrelated to the query: the explained candidates carry it.
func TestBM25FindsAreScoredByVectorToo(t *testing.T) {
	e := setup(t)
	e.eng.Tuning.Candidates = 1 // vector depth 4 < the chunks BM25 finds
	r := search(t, e, retrieve.Request{Query: "the", K: 1, Explain: true})
	lexOnly := 0
	for _, c := range r.Candidates {
		if c.LexRank > 0 && c.VecRank == 0 {
			lexOnly++
			if c.VecSim == 0 {
				t.Errorf("%s (lex rank %d) has no cosine", c.RelPath, c.LexRank)
			}
		}
	}
	if lexOnly == 0 {
		t.Fatalf("no candidate found by BM25 alone among %d", len(r.Candidates))
	}
}

// kindRecorder is an embedder that records the kinds queries are embedded for.
type kindRecorder struct {
	embed.Embedder
	mu    sync.Mutex
	kinds []string
}

func (r *kindRecorder) Embed(ctx context.Context, in []embed.Input) ([][]float32, error) {
	r.mu.Lock()
	for _, x := range in {
		if x.Query {
			r.kinds = append(r.kinds, x.Kind)
		}
	}
	r.mu.Unlock()
	return r.Embedder.Embed(ctx, in)
}

// Each index is searched with the query prepared for its kind, even when
// both kinds share one embedder: a code query splits identifiers as code
// chunks were split, a text query does not.
func TestQueryEmbeddedPerKind(t *testing.T) {
	e := setup(t)
	rec := &kindRecorder{Embedder: e.embs[record.KindText]}
	e.eng.Embedders = map[string]embed.Embedder{record.KindText: rec, record.KindCode: rec}
	r := search(t, e, retrieve.Request{Query: "how does readHeader parse the tar header", Mode: retrieve.ModeVector})
	if r.IndexUsed != "both" || r.VectorHits == 0 {
		t.Fatalf("index_used %q, vector hits %d", r.IndexUsed, r.VectorHits)
	}
	slices.Sort(rec.kinds)
	if !slices.Equal(rec.kinds, []string{record.KindCode, record.KindText}) {
		t.Errorf("query embedded for kinds %v, want one embedding per kind", rec.kinds)
	}
}

// An engine whose vector files load only when asked (a server restarting
// loads them after its first index run) gives the first search the vector
// channel: the search starts the load and waits for it.
func TestFirstSearchWaitsForDeferredVectors(t *testing.T) {
	e := setup(t)
	eng := retrieve.OpenDeferred(e.st, e.dir, e.cfg, e.embs, 0)
	defer eng.Close()
	r, err := eng.Search(context.Background(), retrieve.Request{Query: "tar archive header"})
	if err != nil {
		t.Fatal(err)
	}
	if r.VectorHits == 0 || len(r.VectorSkipped) != 0 {
		t.Errorf("first search: %d vector hits, skipped %v", r.VectorHits, r.VectorSkipped)
	}
}

// TestWarmedRefsAnswerAsRefsReadPerSearch: an engine whose ref cache was
// filled at once (WarmRefs, as a server does after each index run) answers
// every query as one reading refs search by search.
func TestWarmedRefsAnswerAsRefsReadPerSearch(t *testing.T) {
	e := setup(t)
	// The same store and indexes, its own empty ref cache.
	cold := &retrieve.Engine{Store: e.st, Vectors: e.eng.Vectors, Keywords: e.eng.Keywords, Embedders: e.embs, Tuning: e.cfg.Search, Oversample: 5}
	if err := e.eng.WarmRefs(context.Background()); err != nil {
		t.Fatal(err)
	}
	queries := []string{"close the dome when the wind is strong", "Next advances to the next entry", "ReadFileHeader"}
	for _, q := range queries {
		for _, mode := range []string{retrieve.ModeHybrid, retrieve.ModeVector, retrieve.ModeLexical} {
			warm := search(t, e, retrieve.Request{Query: q, Mode: mode})
			r, err := cold.Search(context.Background(), retrieve.Request{Query: q, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(paths(warm), paths(r)) {
				t.Errorf("%s %q: warmed refs give %v, refs read per search %v", mode, q, paths(warm), paths(r))
			}
		}
	}
}

// TestDefinitionsThroughKeywordIndexAsContexts: marking the chunks that
// define a name through the keyword index (reading only the contexts its
// title column may hold the name in) marks the same chunks as reading
// every chunk's context, for every word of every context, its case
// changed, and absent names.
func TestDefinitionsThroughKeywordIndexAsContexts(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	var ids []int64
	for id := int64(0); id < 400; id++ {
		ids = append(ids, id)
	}
	contexts, err := e.st.ChunkContexts(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{"absent": true, "Next_": true}
	for _, c := range contexts {
		textsplit.EachWord(c, func(w string) {
			names[w], names[strings.ToLower(w)], names[strings.ToUpper(w)] = true, true, true
		})
	}
	if len(names) < 20 {
		t.Fatalf("only %d names in the corpus's contexts: %v", len(names), contexts)
	}
	defining := 0
	for name := range names {
		via, err := e.eng.DefinesOf(ctx, ids, name, true)
		if err != nil {
			t.Fatal(err)
		}
		all, err := e.eng.DefinesOf(ctx, ids, name, false)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(via, all) {
			t.Errorf("%q: through the keyword index %v, from every context %v", name, trueKeys(via), trueKeys(all))
		}
		defining += len(trueKeys(all))
	}
	if defining == 0 {
		t.Fatal("no chunk defines any name")
	}
}

func trueKeys(m map[int64]bool) []int64 {
	var out []int64
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
