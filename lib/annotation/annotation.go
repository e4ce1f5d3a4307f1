// Package annotation holds structured extraction (SPEC §7.4 D, §15.8): an
// Annotator fills a caller's JSON schema from a document, the result is
// stored as annotation_json, and Flatten derives the annotation_text
// ("key: value" lines) that is indexed.
package annotation

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dir2mcp/dir2mcp/lib/cache"
	"github.com/dir2mcp/dir2mcp/lib/ocr"
)

// Request asks for the fields of Schema to be extracted from Document.
type Request struct {
	Document ocr.Document
	// Schema is a JSON Schema object describing the wanted fields.
	Schema json.RawMessage
	// Name names the schema for the provider (default "annotation").
	Name string
	// Prompt optionally instructs the model.
	Prompt string
}

// Result is an extraction.
type Result struct {
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	JSON     json.RawMessage `json:"annotation_json"`
}

// Annotator extracts structured data. Implementations are safe for
// concurrent use; errors are *errcode.Error.
type Annotator interface {
	Provider() string
	Model() string
	Annotate(ctx context.Context, req Request) (*Result, error)
}

// Cached wraps a so results are read from and written to store (kind
// cache.Annotations), keyed by the document's content hash, the schema,
// name and prompt, and a's provider and model.
func Cached(a Annotator, store *cache.Store) Annotator { return &cached{a: a, store: store} }

type cached struct {
	a     Annotator
	store *cache.Store
}

func (c *cached) Provider() string { return c.a.Provider() }
func (c *cached) Model() string    { return c.a.Model() }

func (c *cached) Annotate(ctx context.Context, req Request) (*Result, error) {
	key := cache.Key(cache.ContentHash(req.Document.Data), req.Document.MIME, string(req.Schema), req.Name, req.Prompt,
		fmt.Sprint(req.Document.Pages), c.a.Provider(), c.a.Model())
	var r Result
	if ok, _ := c.store.Get(cache.Annotations, key, &r); ok {
		return &r, nil
	}
	res, err := c.a.Annotate(ctx, req)
	if err != nil {
		return nil, err
	}
	_ = c.store.Put(cache.Annotations, key, res)
	return res, nil
}
