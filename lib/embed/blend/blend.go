// Package blend combines embedders into one: each part's vector is scaled by
// the square root of its weight and the parts are concatenated, so the
// cosine of two blended vectors is the weighted sum of the parts' cosines.
// A part can weigh more in queries than in documents (Part.QueryBoost).
package blend

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/embed"
)

// Part is one embedder and its weight in the blend.
type Part struct {
	Embedder embed.Embedder
	Weight   float64
	// QueryBoost multiplies the part's share of query vectors (Input.Query)
	// only; 0 means 1. A query's cosine with a document is then
	// proportional to Σ Weight·QueryBoost·cos_part, so search can lean on
	// one part more than documents were embedded for without re-embedding
	// them (the ID, which names the document vectors, does not change).
	QueryBoost float64
}

// Embedder is a weighted concatenation of other embedders.
type Embedder struct {
	parts  []Part
	scale  []float32 // per part: √weight
	qscale []float32 // per part: √weight·QueryBoost
	dim    int
	id     string
}

// New returns the blend of parts; weights are normalised to sum to 1.
func New(parts ...Part) (*Embedder, error) {
	if len(parts) < 2 {
		return nil, fmt.Errorf("blend: need at least two parts")
	}
	sum := 0.0
	for _, p := range parts {
		if p.Weight <= 0 || p.QueryBoost < 0 {
			return nil, fmt.Errorf("blend: weight of %s must be > 0 and its query boost ≥ 0", p.Embedder.ID())
		}
		sum += p.Weight
	}
	e := &Embedder{parts: parts}
	ids := make([]string, len(parts))
	for i, p := range parts {
		w := p.Weight / sum
		e.scale = append(e.scale, float32(math.Sqrt(w)))
		boost := p.QueryBoost
		if boost == 0 {
			boost = 1
		}
		e.qscale = append(e.qscale, float32(math.Sqrt(w)*boost))
		e.dim += p.Embedder.Dim()
		ids[i] = fmt.Sprintf("%s*%.2f", p.Embedder.ID(), w)
	}
	e.id = "blend(" + strings.Join(ids, "+") + ")"
	return e, nil
}

// Load loads every part's model that is loaded on first use (embed.Loader).
func (e *Embedder) Load() error {
	for _, p := range e.parts {
		if err := embed.Load(p.Embedder); err != nil {
			return err
		}
	}
	return nil
}

// ID names every part with its weight.
func (e *Embedder) ID() string { return e.id }

// Dim is the sum of the parts' dimensions.
func (e *Embedder) Dim() int { return e.dim }

// Embed embeds with every part and concatenates the scaled vectors (scaled
// for queries with the parts' query boosts). Parts
// that return a zero vector (no usable text) contribute zeros; the result is
// renormalised so it stays a unit vector whenever any part is non-zero.
func (e *Embedder) Embed(ctx context.Context, in []embed.Input) ([][]float32, error) {
	out := make([][]float32, len(in))
	for i := range out {
		out[i] = make([]float32, 0, e.dim)
	}
	for pi, p := range e.parts {
		vs, err := p.Embedder.Embed(ctx, in)
		if err != nil {
			return nil, err
		}
		for i, v := range vs {
			sc := e.scale[pi]
			if in[i].Query {
				sc = e.qscale[pi]
			}
			for _, x := range v {
				out[i] = append(out[i], x*sc)
			}
		}
	}
	for _, v := range out {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if n > 0 && math.Abs(n-1) > 1e-6 {
			inv := float32(1 / math.Sqrt(n))
			for j := range v {
				v[j] *= inv
			}
		}
	}
	return out, nil
}
