package blend

import (
	"context"
	"math"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/hashing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// The blend's cosine is the weighted sum of its parts' cosines: that is
// what makes it a fusion of the parts' similarity signals.
func TestCosineIsWeightedSumOfParts(t *testing.T) {
	a, _ := hashing.New(64)
	b, _ := hashing.New(128)
	e, err := New(Part{Embedder: a, Weight: 7}, Part{Embedder: b, Weight: 3})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 192 || e.ID() != "blend("+a.ID()+"*0.70+"+b.ID()+"*0.30)" {
		t.Fatalf("dim %d id %s", e.Dim(), e.ID())
	}
	in := []embed.Input{{Text: "parse the HTTP header line"}, {Text: "func parseHeaderLine(b []byte) (Header, error)", Kind: "code"}}
	ctx := context.Background()
	va, _ := a.Embed(ctx, in)
	vb, _ := b.Embed(ctx, in)
	ve, err := e.Embed(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.7*cos(va[0], va[1]) + 0.3*cos(vb[0], vb[1])
	if got := cos(ve[0], ve[1]); math.Abs(got-want) > 1e-5 {
		t.Fatalf("blended cosine %v, want %v", got, want)
	}
	for i, v := range ve {
		if n := cos(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has norm² %v", i, n)
		}
	}
}

func TestRejectsBadParts(t *testing.T) {
	a, _ := hashing.New(64)
	if _, err := New(Part{Embedder: a, Weight: 1}); err == nil {
		t.Error("one part accepted")
	}
	if _, err := New(Part{Embedder: a, Weight: 1}, Part{Embedder: a, Weight: 0}); err == nil {
		t.Error("zero weight accepted")
	}
}

// A query boost changes how a query weighs the parts, not the documents:
// document vectors stay those of the unboosted blend, and a query's cosine
// with a document is Σ w·boost·cos_part over the norm of its boosted parts.
func TestQueryBoostWeighsPartsForQueriesOnly(t *testing.T) {
	a, _ := hashing.New(64)
	b, _ := hashing.New(128)
	plain, _ := New(Part{Embedder: a, Weight: 7}, Part{Embedder: b, Weight: 3})
	e, err := New(Part{Embedder: a, Weight: 7}, Part{Embedder: b, Weight: 3, QueryBoost: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e.ID() != plain.ID() {
		t.Fatalf("query boost changed the ID: %s vs %s", e.ID(), plain.ID())
	}
	ctx := context.Background()
	doc := embed.Input{Text: "func parseHeaderLine(b []byte) (Header, error)", Kind: "code"}
	query := embed.Input{Text: "parse the HTTP header line", Kind: "code", Query: true}
	vd, _ := e.Embed(ctx, []embed.Input{doc})
	pd, _ := plain.Embed(ctx, []embed.Input{doc})
	if cos(vd[0], pd[0]) < 1-1e-6 {
		t.Fatal("query boost changed a document vector")
	}
	va, _ := a.Embed(ctx, []embed.Input{query, doc})
	vb, _ := b.Embed(ctx, []embed.Input{query, doc})
	vq, _ := e.Embed(ctx, []embed.Input{query})
	want := (0.7*cos(va[0], va[1]) + 0.3*2*cos(vb[0], vb[1])) / math.Sqrt(0.7+0.3*4)
	if got := cos(vq[0], vd[0]); math.Abs(got-want) > 1e-5 {
		t.Fatalf("boosted query cosine %v, want %v", got, want)
	}
	if n := cos(vq[0], vq[0]); math.Abs(n-1) > 1e-5 {
		t.Errorf("query vector has norm² %v", n)
	}
	if _, err := New(Part{Embedder: a, Weight: 1}, Part{Embedder: b, Weight: 1, QueryBoost: -1}); err == nil {
		t.Error("negative query boost accepted")
	}
}
