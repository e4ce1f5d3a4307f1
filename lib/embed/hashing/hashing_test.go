package hashing

import (
	"context"
	"hash/fnv"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

var _ embed.Embedder = (*Embedder)(nil)

func newT(t testing.TB, dim int) *Embedder {
	t.Helper()
	e, err := New(dim)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func vec(t testing.TB, e *Embedder, in embed.Input) []float32 {
	t.Helper()
	out, err := e.Embed(context.Background(), []embed.Input{in})
	if err != nil {
		t.Fatal(err)
	}
	return out[0]
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestIDAndDim(t *testing.T) {
	e := newT(t, DefaultDim)
	if e.ID() != "hash-v1/512" || e.Dim() != 512 {
		t.Fatalf("ID=%q Dim=%d", e.ID(), e.Dim())
	}
	if e := newT(t, 64); e.ID() != "hash-v1/64" || len(vec(t, e, embed.Input{Text: "hello world"})) != 64 {
		t.Fatal("dim 64 embedder has the wrong ID or vector length")
	}
	for _, d := range []int{0, 7, -1, 1<<16 + 1} {
		if _, err := New(d); errcode.Of(err) != errcode.ConfigInvalid {
			t.Errorf("New(%d) = %v, want CONFIG_INVALID", d, err)
		}
	}
}

func TestNormalised(t *testing.T) {
	e := newT(t, DefaultDim)
	for _, text := range []string{"xy zz", "hello", codeChunk, "the the the of a", "日本語のテキスト", "42 1000 2024"} {
		v := vec(t, e, embed.Input{Text: text, Kind: "code", Path: "a/b.go"})
		var ss float64
		for _, x := range v {
			ss += float64(x) * float64(x)
		}
		if math.Abs(ss-1) > 1e-5 {
			t.Errorf("%q: |v|² = %v, want 1", text, ss)
		}
	}
}

func TestEmptyInputIsZero(t *testing.T) {
	e := newT(t, 32)
	for _, text := range []string{"", "   ", "(){}[];", "a b c"} {
		v := vec(t, e, embed.Input{Text: text})
		if slices.ContainsFunc(v, func(x float32) bool { return x != 0 }) {
			t.Errorf("%q has no features but a non-zero vector", text)
		}
	}
}

// TestGolden pins the exact bits of one vector: the same input must give
// the same vector on every run and platform. If you changed the features
// or weights on purpose, bump Version and update the constant.
func TestGolden(t *testing.T) {
	e := newT(t, DefaultDim)
	v := vec(t, e, embed.Input{Text: codeChunk + " naïve Über 日本語 x86_64", Kind: "code", Path: "src/net/textproto/reader.go"})
	h := fnv.New64a()
	for _, x := range v {
		b := math.Float32bits(x)
		h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
	}
	const want = 0x73bd49626515c670
	if got := h.Sum64(); got != want {
		t.Fatalf("vector checksum %#x, want %#x: vectors changed; bump Version if intended", got, uint64(want))
	}
}

func TestDeterministicAcrossStateReuse(t *testing.T) {
	e := newT(t, DefaultDim)
	in := embed.Input{Text: codeChunk, Kind: "code", Path: "p/q.go"}
	first := slices.Clone(vec(t, e, in))
	// Grow the scratch table with a huge input, then embed again: the
	// result must not depend on the scratch state's history.
	big := ""
	for i := 0; i < 3000; i++ {
		big += "tok" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + " "
	}
	vec(t, e, embed.Input{Text: big})
	if again := vec(t, e, in); !slices.Equal(first, again) {
		t.Fatal("same input gave different vectors")
	}
	other := newT(t, DefaultDim)
	if !slices.Equal(first, vec(t, other, in)) {
		t.Fatal("two embedders disagree")
	}
}

func TestSimilarityRanking(t *testing.T) {
	e := newT(t, DefaultDim)
	doc := func(s string) []float32 { return vec(t, e, embed.Input{Text: s}) }
	code := func(s, path string) []float32 { return vec(t, e, embed.Input{Text: s, Kind: "code", Path: path}) }
	query := func(s string) []float32 { return vec(t, e, embed.Input{Text: s, Kind: "code", Query: true}) }

	httpDoc := doc("The server parses the HTTP request header and returns a response with status code 200.")
	httpDoc2 := doc("Parsing HTTP headers: the request header is read line by line by the server.")
	cooking := doc("Preheat the oven, whisk the eggs with sugar and bake the cake for forty minutes.")
	if a, b := cos(httpDoc, httpDoc2), cos(httpDoc, cooking); a <= b+0.1 {
		t.Errorf("related prose %.3f not clearly above unrelated %.3f", a, b)
	}

	parse := code("func parseHTTPHeader(r *bufio.Reader) (Header, error) {\n\tline, err := r.ReadString('\\n')\n", "net/http/header.go")
	bake := code("def bake_cake(oven, minutes):\n    oven.preheat(180)\n    return oven.bake(minutes)\n", "kitchen/recipes.py")
	q := query("parse http header")
	if a, b := cos(q, parse), cos(q, bake); a <= b+0.1 {
		t.Errorf("query→matching code %.3f not clearly above unrelated %.3f", a, b)
	}
	// Identifier splitting: the query shares no whole word with the code.
	if cos(q, parse) < 0.2 {
		t.Errorf("query does not match split identifier parts: %.3f", cos(q, parse))
	}
	// Trigrams: inflected forms still match.
	q2 := query("baking cakes in an oven")
	if a, b := cos(q2, bake), cos(q2, parse); a <= b {
		t.Errorf("inflected query: bake code %.3f, http code %.3f", a, b)
	}
}

func TestPathOnlyForCode(t *testing.T) {
	e := newT(t, DefaultDim)
	text := "returns the value"
	plain := vec(t, e, embed.Input{Text: text, Kind: "text", Path: "billing/invoice.md"})
	if !slices.Equal(plain, vec(t, e, embed.Input{Text: text, Kind: "text"})) {
		t.Error("path changed a text vector")
	}
	withPath := vec(t, e, embed.Input{Text: text, Kind: "code", Path: "billing/invoice_total.go"})
	q := vec(t, e, embed.Input{Text: "invoice total", Kind: "code", Query: true})
	if cos(q, withPath) <= cos(q, vec(t, e, embed.Input{Text: text, Kind: "code"})) {
		t.Error("code path words do not help a query naming them")
	}
	// The extension is not a feature: every .go file would share it.
	a := vec(t, e, embed.Input{Text: "alpha", Kind: "code", Path: "x.go"})
	b := vec(t, e, embed.Input{Text: "alpha", Kind: "code", Path: "x.py"})
	if !slices.Equal(a, b) {
		t.Error("file extension changed the vector")
	}
	// A dot file's name is its name, not an extension.
	c := vec(t, e, embed.Input{Text: "alpha", Kind: "code", Path: "conf/.gitignore"})
	d := vec(t, e, embed.Input{Text: "alpha", Kind: "code", Path: "conf/"})
	if slices.Equal(c, d) {
		t.Error("dot file name was dropped as an extension")
	}
}

func TestStopwordsDownWeighted(t *testing.T) {
	e := newT(t, DefaultDim)
	q := vec(t, e, embed.Input{Text: "the database connection"})
	onlyStop := vec(t, e, embed.Input{Text: "the of and to if return"})
	content := vec(t, e, embed.Input{Text: "database pool"})
	if cos(q, onlyStop) >= cos(q, content) {
		t.Errorf("stopword overlap %.3f outranks content overlap %.3f", cos(q, onlyStop), cos(q, content))
	}
}

func TestConcurrentUse(t *testing.T) {
	e := newT(t, DefaultDim)
	texts := []string{codeChunk, "hello world", "parseHTTPHeader2 snake_case", "日本語 naïve"}
	want := make([][]float32, len(texts))
	for i, s := range texts {
		want[i] = slices.Clone(vec(t, e, embed.Input{Text: s, Kind: "code", Path: "a/b.go"}))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			dst := make([]float32, e.Dim())
			for i := 0; i < 200; i++ {
				k := (g + i) % len(texts)
				e.EmbedInto(dst, embed.Input{Text: texts[k], Kind: "code", Path: "a/b.go"})
				if !slices.Equal(dst, want[k]) {
					errs <- "concurrent embedding differs"
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestEmbedBatchAndCancel(t *testing.T) {
	e := newT(t, 16)
	in := []embed.Input{{Text: "alpha beta"}, {Text: "gamma delta"}, {Text: "alpha beta"}}
	out, err := e.Embed(context.Background(), in)
	if err != nil || len(out) != 3 {
		t.Fatalf("Embed = %d vectors, %v", len(out), err)
	}
	if !slices.Equal(out[0], out[2]) || slices.Equal(out[0], out[1]) {
		t.Fatal("batch vectors are not per-input")
	}
	out[0] = append(out[0], 1) // must not overwrite out[1]
	if len(out[1]) != 16 || out[1][0] != vec(t, e, in[1])[0] {
		t.Fatal("appending to one vector corrupted the next")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Embed(ctx, in); err == nil {
		t.Fatal("Embed ignored a cancelled context")
	}
}

func TestEmbedIntoNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	e := newT(t, DefaultDim)
	dst := make([]float32, e.Dim())
	in := embed.Input{Text: codeChunk, Kind: "code", Path: "src/x/y.go"}
	e.EmbedInto(dst, in)
	if a := testing.AllocsPerRun(50, func() { e.EmbedInto(dst, in) }); a != 0 {
		t.Fatalf("EmbedInto allocates %.1f times per call", a)
	}
}
