package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/chunk"
)

func TestBatchesRespectCountAndTokenBudget(t *testing.T) {
	got := Batches([]int{5, 5, 5, 5, 5}, BatchLimits{MaxInputs: 2})
	want := []Batch{{0, 2}, {2, 4}, {4, 5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("by count: %v, want %v", got, want)
	}
	got = Batches([]int{4, 4, 4, 20, 1, 1}, BatchLimits{MaxInputs: 10, MaxTokens: 10})
	want = []Batch{{0, 2}, {2, 3}, {3, 4}, {4, 6}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("by tokens: %v, want %v", got, want)
	}
	if got := Batches(nil, BatchLimits{MaxInputs: 3}); len(got) != 0 {
		t.Fatalf("empty: %v", got)
	}
}

// fakeVectors embeds text i as a vector whose first component encodes i,
// so order can be checked after normalisation.
func fakeVectors(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		var n int
		fmt.Sscanf(s, "t%d", &n)
		out[i] = []float32{float32(n + 1), 1}
	}
	return out
}

func TestEmbedAllKeepsOrderAcrossParallelBatches(t *testing.T) {
	texts := make([]string, 103)
	for i := range texts {
		texts[i] = fmt.Sprintf("t%d", i)
	}
	var mu sync.Mutex
	var sizes []int
	vecs, err := EmbedAll(context.Background(), texts, BatchLimits{MaxInputs: 10}, 4, 2, func(ctx context.Context, b []string) ([][]float32, error) {
		mu.Lock()
		sizes = append(sizes, len(b))
		mu.Unlock()
		return fakeVectors(b), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sizes) != 11 {
		t.Fatalf("%d batches, want 11", len(sizes))
	}
	for i, v := range vecs {
		norm := math.Hypot(float64(v[0]), float64(v[1]))
		if math.Abs(norm-1) > 1e-6 {
			t.Fatalf("vector %d has norm %v", i, norm)
		}
		if ratio := v[0] / v[1]; math.Abs(float64(ratio)-float64(i+1)) > 1e-3 {
			t.Fatalf("vector %d is text %v's", i, ratio-1)
		}
	}
}

func TestEmbedAllSplitsBatchesTheProviderRejects(t *testing.T) {
	texts := []string{"t0", "t1", "t2", "t3", "t4"}
	var calls []int
	vecs, err := EmbedAll(context.Background(), texts, BatchLimits{MaxInputs: 8}, 1, 2, func(ctx context.Context, b []string) ([][]float32, error) {
		calls = append(calls, len(b))
		if len(b) > 2 {
			return nil, fmt.Errorf("wrapped: %w", ErrBatchTooLarge)
		}
		return fakeVectors(b), nil
	})
	if err != nil || len(vecs) != 5 {
		t.Fatalf("vecs %d, err %v", len(vecs), err)
	}
	if !reflect.DeepEqual(calls, []int{5, 2, 3, 1, 2}) {
		t.Fatalf("calls %v", calls)
	}
}

func TestEmbedAllChecksShapeAndStopsOnError(t *testing.T) {
	_, err := EmbedAll(context.Background(), []string{"a", "b"}, BatchLimits{MaxInputs: 2}, 1, 3, func(ctx context.Context, b []string) ([][]float32, error) {
		return [][]float32{{1, 0, 0}}, nil
	})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("count mismatch: %v", err)
	}
	_, err = EmbedAll(context.Background(), []string{"a"}, BatchLimits{MaxInputs: 2}, 1, 3, func(ctx context.Context, b []string) ([][]float32, error) {
		return [][]float32{{1, 0}}, nil
	})
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "2-dimensional") {
		t.Fatalf("dim mismatch: %v", err)
	}
	boom := errors.New("boom")
	var mu sync.Mutex
	calls := 0
	_, err = EmbedAll(context.Background(), make([]string, 50), BatchLimits{MaxInputs: 1}, 1, 2, func(ctx context.Context, b []string) ([][]float32, error) {
		mu.Lock()
		calls++
		mu.Unlock()
		return nil, boom
	})
	if !errors.Is(err, boom) || calls > 2 {
		t.Fatalf("err %v after %d calls; want the first error and no more batches", err, calls)
	}
}

func TestEmbedAllSendsNoEmptyInput(t *testing.T) {
	_, err := EmbedAll(context.Background(), []string{""}, BatchLimits{MaxInputs: 2}, 1, 2, func(ctx context.Context, b []string) ([][]float32, error) {
		if b[0] == "" {
			t.Error("empty input sent")
		}
		return [][]float32{{0, 1}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	if err := Normalize(v); err != nil || v[0] != 0.6 || v[1] != 0.8 {
		t.Fatalf("%v %v", v, err)
	}
	z := []float32{0, 0}
	if err := Normalize(z); err != nil || z[0] != 0 {
		t.Fatalf("zero: %v %v", z, err)
	}
	if err := Normalize([]float32{float32(math.NaN())}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("NaN: %v", err)
	}
}

func TestTruncateTokens(t *testing.T) {
	s := strings.Repeat("héllo wörld ", 500)
	cut := TruncateTokens(s, 100)
	if !strings.HasPrefix(s, cut) || !utf8.ValidString(cut) || chunk.TokensEstimate(cut) > 100 || chunk.TokensEstimate(cut) < 90 {
		t.Fatalf("cut to %d tokens (%d bytes)", chunk.TokensEstimate(cut), len(cut))
	}
	if TruncateTokens("short", 100) != "short" {
		t.Fatal("short text changed")
	}
}
