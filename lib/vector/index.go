package vector

import (
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/viterin/vek/vek32"
)

// Index is an in-memory exact vector index: one float32 vector per int64
// label, stored contiguously. Its methods are safe for concurrent use;
// searches share a read lock and mutations take a short write lock.
// The read-only methods (Model, Dim, Len, Has, Search) also accept a nil
// *Index, which behaves as an empty index.
type Index struct {
	mu     sync.RWMutex
	model  string
	dim    int
	labels []int64
	// vecs holds len(labels)·dim elements; vector i is vecs[i·dim:(i+1)·dim].
	vecs  []float32
	slots map[int64]int
}

// New returns an empty index for vectors of length dim produced by the
// embedder named model.
func New(model string, dim int) (*Index, error) {
	if dim <= 0 || dim > MaxDim {
		return nil, errcode.FieldError(errcode.InvalidField, "dim", "vector dimension %d out of range 1..%d", dim, MaxDim)
	}
	if len(model) > MaxModelLen {
		return nil, errcode.FieldError(errcode.InvalidField, "model", "model id is %d bytes, limit %d", len(model), MaxModelLen)
	}
	return &Index{model: model, dim: dim, slots: make(map[int64]int)}, nil
}

// Model returns the embedder ID the vectors came from.
func (ix *Index) Model() string {
	if ix == nil {
		return ""
	}
	return ix.model
}

// Dim returns the vector length.
func (ix *Index) Dim() int {
	if ix == nil {
		return 0
	}
	return ix.dim
}

// Len returns the number of vectors.
func (ix *Index) Len() int {
	if ix == nil {
		return 0
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.labels)
}

// Has reports whether label has a vector.
func (ix *Index) Has(label int64) bool {
	if ix == nil {
		return false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.slots[label]
	return ok
}

// Labels returns a copy of all labels, in storage order.
func (ix *Index) Labels() []int64 {
	if ix == nil {
		return nil
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return append([]int64(nil), ix.labels...)
}

// Vector returns a copy of label's vector, or false if it has none.
func (ix *Index) Vector(label int64) ([]float32, bool) {
	if ix == nil {
		return nil, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	i, ok := ix.slots[label]
	if !ok {
		return nil, false
	}
	return append([]float32(nil), ix.vecs[i*ix.dim:(i+1)*ix.dim]...), true
}

// Dot returns the dot product of q with label's vector (the cosine when
// both are L2-normalised), or false if label has none or q's dimension
// differs.
func (ix *Index) Dot(label int64, q []float32) (float32, bool) {
	if ix == nil || len(q) != ix.dim {
		return 0, false
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	i, ok := ix.slots[label]
	if !ok {
		return 0, false
	}
	return vek32.Dot(q, ix.vecs[i*ix.dim:(i+1)*ix.dim]), true
}

// Upsert stores a copy of vec under label, replacing any vector the label
// already has. vec must have length Dim and finite elements. Scores are
// cosine similarities only if vectors are L2-normalised, as every
// embed.Embedder's are; Upsert stores vec as given.
func (ix *Index) Upsert(label int64, vec []float32) error {
	if err := ix.checkVec(vec, "vector"); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if i, ok := ix.slots[label]; ok {
		copy(ix.vecs[i*ix.dim:], vec)
		return nil
	}
	ix.slots[label] = len(ix.labels)
	ix.labels = append(ix.labels, label)
	ix.vecs = append(ix.vecs, vec...)
	return nil
}

// Delete removes the vectors of the given labels, ignoring labels that have
// none, and returns how many it removed. It compacts storage in place by
// moving the last vector into each hole, so it costs O(Dim) per label.
func (ix *Index) Delete(labels ...int64) int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	n := 0
	d := ix.dim
	for _, l := range labels {
		i, ok := ix.slots[l]
		if !ok {
			continue
		}
		last := len(ix.labels) - 1
		if i != last {
			moved := ix.labels[last]
			ix.labels[i] = moved
			copy(ix.vecs[i*d:(i+1)*d], ix.vecs[last*d:])
			ix.slots[moved] = i
		}
		ix.labels = ix.labels[:last]
		ix.vecs = ix.vecs[:last*d]
		delete(ix.slots, l)
		n++
	}
	return n
}

// checkVec validates a vector's length and values against the index.
func (ix *Index) checkVec(v []float32, field string) error {
	return checkVector(v, ix.dim, ix.model, field)
}
