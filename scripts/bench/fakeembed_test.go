package main

import (
	"context"
	"math"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/provider/openai"
)

// The fake answers dir2mcp's own OpenAI client, as the scale bench's
// provider corpus needs: one unit vector of the model's width per input,
// equal texts equal, shared words closer than none.
func TestFakeEmbeddingsServesTheOpenAIClient(t *testing.T) {
	f, err := startFakeEmbeddings(providerDim)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	c, err := openai.New(openai.Options{BaseURL: f.url + "/v1", APIKey: config.Secret{Value: fakeKey}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := c.Embedder("text-embedding-3-small", 0)
	if err != nil {
		t.Fatal(err)
	}
	in := []embed.Input{{Text: "http server shutdown", Kind: "code"}, {Text: "graceful http server shutdown", Kind: "code"},
		{Text: "parse time layout", Kind: "code"}, {Text: "http server shutdown", Kind: "code"}}
	vecs, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(in) {
		t.Fatalf("%d vectors for %d inputs", len(vecs), len(in))
	}
	for i, v := range vecs {
		if len(v) != providerDim || math.Abs(dot(v, v)-1) > 1e-4 {
			t.Fatalf("vector %d: %d dims, norm² %.4f; want %d, 1", i, len(v), dot(v, v), providerDim)
		}
	}
	if dot(vecs[0], vecs[3]) < 0.9999 || dot(vecs[0], vecs[1]) <= dot(vecs[0], vecs[2]) {
		t.Fatalf("similarities same %.3f, shared words %.3f, none %.3f", dot(vecs[0], vecs[3]), dot(vecs[0], vecs[1]), dot(vecs[0], vecs[2]))
	}
	if n := f.inputs.Load(); n != int64(len(in)) {
		t.Fatalf("the fake counted %d inputs, want %d", n, len(in))
	}
	bad, _ := openai.New(openai.Options{BaseURL: f.url, APIKey: config.Secret{Value: "sk-wrong"}})
	be, _ := bad.Embedder("text-embedding-3-small", 0)
	if _, err := be.Embed(context.Background(), in[:1]); err == nil {
		t.Fatal("a wrong API key was accepted")
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
