package provider

import (
	"context"
	"errors"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
)

// BatchLimits bounds one embedding request.
type BatchLimits struct {
	// MaxInputs is the most texts per request (required, > 0).
	MaxInputs int
	// MaxTokens is the most estimated tokens (chunk.TokensEstimate) per
	// request; 0 means no budget. A single text over the budget still goes
	// alone in its own request.
	MaxTokens int
	// MaxInputTokens truncates a longer text (estimated tokens) before it is
	// sent; 0 means no truncation.
	MaxInputTokens int
}

// EmbedFunc embeds one batch and returns one vector per text, in order.
type EmbedFunc func(ctx context.Context, texts []string) ([][]float32, error)

// Batch is the half-open index range [Start, End) of one request.
type Batch struct{ Start, End int }

// Batches splits texts into contiguous batches that respect lim, given each
// text's estimated token count.
func Batches(tokens []int, lim BatchLimits) []Batch {
	maxIn := lim.MaxInputs
	if maxIn <= 0 {
		maxIn = 1
	}
	var out []Batch
	start, sum := 0, 0
	for i, t := range tokens {
		full := i-start >= maxIn || (lim.MaxTokens > 0 && i > start && sum+t > lim.MaxTokens)
		if full {
			out = append(out, Batch{start, i})
			start, sum = i, 0
		}
		sum += t
	}
	if start < len(tokens) {
		out = append(out, Batch{start, len(tokens)})
	}
	return out
}

// EmbedAll embeds texts in batches that respect lim, running at most
// parallel requests at once, and returns one L2-normalised vector of length
// dim per text, in order. Empty texts are sent as a single space (providers
// reject empty inputs). A batch the provider rejects as too large
// (ErrBatchTooLarge) is split in half and retried. The first error cancels
// the remaining batches and is returned.
func EmbedAll(ctx context.Context, texts []string, lim BatchLimits, parallel, dim int, fn EmbedFunc) ([][]float32, error) {
	prepared := make([]string, len(texts))
	tokens := make([]int, len(texts))
	for i, s := range texts {
		if s == "" {
			s = " "
		}
		if lim.MaxInputTokens > 0 {
			s = TruncateTokens(s, lim.MaxInputTokens)
		}
		prepared[i] = s
		tokens[i] = chunk.TokensEstimate(s)
	}
	out := make([][]float32, len(texts))
	batches := Batches(tokens, lim)
	if parallel <= 0 {
		parallel = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		next     = make(chan Batch)
	)
	for w := 0; w < min(parallel, len(batches)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if err := embedSplitting(ctx, prepared, b, dim, fn, out); err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}
		}()
	}
feed:
	for _, b := range batches {
		select {
		case next <- b:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

func embedSplitting(ctx context.Context, texts []string, b Batch, dim int, fn EmbedFunc, out [][]float32) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	vecs, err := fn(ctx, texts[b.Start:b.End])
	if err != nil {
		if errors.Is(err, ErrBatchTooLarge) && b.End-b.Start > 1 {
			mid := b.Start + (b.End-b.Start)/2
			if err := embedSplitting(ctx, texts, Batch{b.Start, mid}, dim, fn, out); err != nil {
				return err
			}
			return embedSplitting(ctx, texts, Batch{mid, b.End}, dim, fn, out)
		}
		return err
	}
	if len(vecs) != b.End-b.Start {
		return errMalformedf("%d vectors for %d inputs", len(vecs), b.End-b.Start)
	}
	for i, v := range vecs {
		if len(v) != dim {
			return errMalformedf("a %d-dimensional vector where %d dimensions were expected", len(v), dim)
		}
		if err := Normalize(v); err != nil {
			return err
		}
		out[b.Start+i] = v
	}
	return nil
}
