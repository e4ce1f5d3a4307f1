// Package full is the opt-in "local-full" embedder: the whole Universal
// Sentence Encoder Lite forward pass (two transformer layers) in pure Go,
// with int8 weights converted by scripts/distill/convert-full.js and built
// into the binary (about 7 MB). It is far slower than the token table of
// package local but sees word order and context; vectors match the TF.js
// model to cosine ≥ 0.999.
package full

import (
	"context"
	_ "embed"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/local"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Name is the provider name under which the embedder is registered.
const Name = "local-full"

//go:embed model.bin
var weightsFile []byte

var shared struct {
	once  sync.Once
	m     *model
	hash  string
	tok   *local.Tokenizer
	err   error
	vocab int
}

func load() (*model, *local.Tokenizer, string, error) {
	s := &shared
	s.once.Do(func() {
		var w map[string]*tensor
		w, s.hash, s.err = parseWeights(weightsFile)
		if s.err != nil {
			return
		}
		if s.m, s.err = newModel(w); s.err != nil {
			return
		}
		_, s.tok, s.err = local.DefaultTable()
	})
	return s.m, s.tok, s.hash, s.err
}

// Embedder embeds text with the full model. It is safe for concurrent use;
// the weights are decoded once per process on first use (~30 MB of float32).
type Embedder struct{}

var _ embed.Embedder = Embedder{}

// New returns the full-model embedder.
func New() Embedder { return Embedder{} }

// ID names the model, the weights' content hash prefix and the text
// preparation version, e.g. "local-use-lite-full/512@0123456789ab.t1".
func (Embedder) ID() string {
	_, _, hash, err := load()
	if err != nil {
		return "local-use-lite-full/invalid"
	}
	return "local-use-lite-full/512@" + hash[:12] + "." + local.TextVersion
}

// Dim is 512.
func (Embedder) Dim() int { return outDim }

// Embed returns one L2-normalised vector per input, preparing text as
// package local does (local.Prepare). Only the first 128 tokens of a text
// count; a text with no tokens gets the zero vector.
func (Embedder) Embed(ctx context.Context, in []embed.Input) ([][]float32, error) {
	m, tok, _, err := load()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(in))
	var ids []int32
	for i, x := range in {
		if err := ctx.Err(); err != nil {
			return nil, errcode.Wrap(errcode.EmbedFailed, err, "embedding cancelled")
		}
		ids = tok.AppendEncode(ids[:0], local.Prepare(x))
		out[i] = m.forward(ids)
	}
	return out, nil
}
