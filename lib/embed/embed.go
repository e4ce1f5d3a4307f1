// Package embed defines the Embedder interface that turns chunk and query
// text into vectors. The built-in embedders are its subpackages (local,
// hashing, blend); lib/models/embedders picks one from the configuration.
// Chat models implement the sibling interface chat.Chatter (lib/chat).
package embed

import "context"

// Input is one text to embed with the context a model may use.
type Input struct {
	Text string
	// Kind is the index kind: "text" or "code".
	Kind string
	// Path is the document's rel_path (empty for queries).
	Path string
	// Lang is the code language when known ("go", "python", ...).
	Lang string
	// Query marks a search query rather than a document chunk.
	Query bool
}

// Embedder turns texts into fixed-size, L2-normalised float32 vectors.
// Implementations must be safe for concurrent use.
type Embedder interface {
	// ID names the model and its version (e.g. "hash-v1/512"); vectors of
	// different IDs are never mixed in one index.
	ID() string
	// Dim is the length of every returned vector.
	Dim() int
	// Embed returns one vector per input, in order.
	Embed(ctx context.Context, in []Input) ([][]float32, error)
}

// Loader is an Embedder that loads its model on first use and can be
// asked to load it ahead of time (a server does, in the background, once
// it is serving).
type Loader interface {
	Load() error
}

// Load loads e's model now if it is a Loader; others need nothing.
func Load(e Embedder) error {
	if l, ok := e.(Loader); ok {
		return l.Load()
	}
	return nil
}
