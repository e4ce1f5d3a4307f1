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
