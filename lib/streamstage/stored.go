package streamstage

import (
	"context"
	"fmt"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
)

// stored is an embedder that answers from vectors received on a stream:
// it has the ID and dimension of the configured model, and a vector for
// exactly the inputs it was given (the replica feeds it nothing else).
type stored struct {
	model embed.Embedder
	mu    sync.Mutex
	vecs  map[string][]float32
}

func (s *stored) ID() string { return s.model.ID() }
func (s *stored) Dim() int   { return s.model.Dim() }

func (s *stored) put(m map[string][]float32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range m {
		s.vecs[k] = v
	}
}

func (s *stored) Embed(_ context.Context, in []embed.Input) ([][]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]float32, len(in))
	for i, x := range in {
		v, ok := s.vecs[indexer.VectorKey(x)]
		if !ok {
			return nil, fmt.Errorf("no vector received for chunk of %s", x.Path)
		}
		delete(s.vecs, indexer.VectorKey(x))
		out[i] = v
	}
	return out, nil
}
