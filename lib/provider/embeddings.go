package provider

import (
	"context"
	"errors"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// EmbeddingsRequest is the OpenAI-style POST /v1/embeddings body that
// Mistral and OpenAI-compatible servers accept. Mistral names the
// dimension field "output_dimension", OpenAI "dimensions"; set the one the
// server documents. Sources: Mistral client-python
// src/mistralai/models/embeddingrequest.py (model, input, output_dimension,
// output_dtype, encoding_format); OpenAI API reference "Create embeddings".
type EmbeddingsRequest struct {
	Model           string   `json:"model"`
	Input           []string `json:"input"`
	OutputDimension int      `json:"output_dimension,omitempty"`
	Dimensions      int      `json:"dimensions,omitempty"`
	EncodingFormat  string   `json:"encoding_format,omitempty"`
}

// EmbeddingsResponse is the reply: data[{index, embedding}] (Mistral
// client-python embeddingresponse.py / embeddingresponsedata.py).
type EmbeddingsResponse struct {
	Model string `json:"model"`
	Data  []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// PostEmbeddings sends one OpenAI-style embeddings request to path and
// returns the vectors ordered by their index field (positional when the
// server omits it). Errors carry failCode unless they are auth or rate
// limit errors.
func (c *Client) PostEmbeddings(ctx context.Context, path string, failCode errcode.Code, in EmbeddingsRequest) ([][]float32, error) {
	req := Request{Path: path, Op: "embeddings", FailCode: failCode}
	var out EmbeddingsResponse
	if err := c.PostJSON(ctx, req, in, &out); err != nil {
		return nil, err
	}
	if len(out.Data) != len(in.Input) {
		return nil, c.Malformed(req, "%d embeddings for %d inputs", len(out.Data), len(in.Input))
	}
	vecs := make([][]float32, len(out.Data))
	for i, d := range out.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= len(vecs) || vecs[idx] != nil {
			return nil, c.Malformed(req, "embedding index %d out of range or repeated", idx)
		}
		if len(d.Embedding) == 0 {
			return nil, c.Malformed(req, "empty embedding at index %d", idx)
		}
		vecs[idx] = d.Embedding
	}
	return vecs, nil
}

// Errorf converts err, as returned by EmbedAll or any helper here, into the
// client's typed error for req: *errcode.Error passes through, a shape
// error becomes a malformed-response error, the context ending becomes a
// cancellation.
func (c *Client) Errorf(req Request, err error) error {
	if err == nil {
		return nil
	}
	var e *errcode.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, ErrMalformed) {
		return c.fail(req, false, err, "%v", err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return c.fail(req, true, err, "%v", err)
	}
	return c.fail(req, false, err, "%v", err)
}
