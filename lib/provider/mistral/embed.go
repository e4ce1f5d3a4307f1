package mistral

import (
	"context"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/provider"
)

// Embedding request limits. Mistral rejects more than 512 inputs per
// request ("Too many inputs in request, split into more batches") and more
// than 16384 tokens per request ("Too many tokens in batch. Max is 16384");
// one input may hold 8192 tokens. Our token counts are estimates
// (chunk.TokensEstimate), so the budgets keep a margin; a batch the API
// still rejects as too large is split and retried (provider.EmbedAll).
var EmbedLimits = provider.BatchLimits{MaxInputs: 256, MaxTokens: 12000, MaxInputTokens: 6000}

// Known embedding models: their default dimension and the largest
// output_dimension they accept (0 = fixed). codestral-embed defaults to
// 1536 and accepts up to 3072; mistral-embed is 1024-d.
var embedModels = map[string]struct{ dim, maxDim int }{
	"mistral-embed":   {1024, 0},
	"codestral-embed": {1536, 3072},
}

// Embedder returns an embedder for model. dim 0 takes the model's default;
// another value is sent as output_dimension to models that accept it. An
// unknown model needs an explicit dim (it is not sent, only checked).
func (c *Client) Embedder(model string, dim int) (*provider.Embedder, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return nil, errcode.New(errcode.ConfigInvalid, "mistral: no embedding model configured")
	}
	sendDim := 0
	if known, ok := lookupEmbedModel(model); ok {
		switch {
		case dim == 0:
			dim = known.dim
		case dim == known.dim:
		case known.maxDim == 0 || dim < 1 || dim > known.maxDim:
			return nil, errcode.New(errcode.ConfigInvalid, "mistral: %s does not produce %d-dimensional vectors", model, dim)
		default:
			sendDim = dim
		}
	} else if dim <= 0 {
		return nil, errcode.New(errcode.ConfigInvalid, "mistral: the dimension of embedding model %q is unknown; configure it", model)
	}
	batch := func(ctx context.Context, texts []string) ([][]float32, error) {
		return c.http.PostEmbeddings(ctx, "/v1/embeddings", "", provider.EmbeddingsRequest{
			Model: model, Input: texts, OutputDimension: sendDim,
		})
	}
	return provider.NewEmbedder(provider.EmbedderConfig{
		Provider: "mistral", Model: model, Dim: dim, Limits: EmbedLimits, Client: c.http, Batch: batch,
	}), nil
}

// lookupEmbedModel matches a model name or a dated version of it
// ("codestral-embed-2505").
func lookupEmbedModel(model string) (struct{ dim, maxDim int }, bool) {
	for name, m := range embedModels {
		if model == name || strings.HasPrefix(model, name+"-") {
			return m, true
		}
	}
	return struct{ dim, maxDim int }{}, false
}
