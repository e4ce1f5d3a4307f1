package ocr

import (
	"context"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/cache"
)

// Cached wraps e so results are read from and written to store (kind
// cache.OCR), keyed by the document's content hash, the page selection,
// and e's provider and model: the same bytes are never recognised twice.
// A failed cache write is ignored (the result is still returned).
func Cached(e Engine, store *cache.Store) Engine {
	return &cached{e: e, store: store}
}

type cached struct {
	e     Engine
	store *cache.Store
}

func (c *cached) Provider() string { return c.e.Provider() }
func (c *cached) Model() string    { return c.e.Model() }

func (c *cached) OCR(ctx context.Context, d Document) (*Result, error) {
	key := cache.Key(cache.ContentHash(d.Data), d.MIME, pagesKey(d.Pages), c.e.Provider(), c.e.Model())
	var r Result
	if ok, _ := c.store.Get(cache.OCR, key, &r); ok {
		return &r, nil
	}
	res, err := c.e.OCR(ctx, d)
	if err != nil {
		return nil, err
	}
	_ = c.store.Put(cache.OCR, key, res)
	return res, nil
}

func pagesKey(pages []int) string {
	if len(pages) == 0 {
		return "all"
	}
	s := make([]string, len(pages))
	for i, p := range pages {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}
