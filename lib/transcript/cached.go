package transcript

import (
	"context"
	"strconv"

	"github.com/dir2mcp/dir2mcp/lib/cache"
)

// Cached wraps tr so transcripts are read from and written to store (kind
// cache.Transcribe), keyed by the audio's content hash, tr's provider and
// model, the language hint and the timestamps flag. A failed cache write
// is ignored.
func Cached(tr Transcriber, store *cache.Store) Transcriber {
	return &cached{tr: tr, store: store}
}

// Refreshed wraps tr like Cached but never reads the cache: every call
// transcribes anew and replaces the cached entry (dir2mcp.transcribe with
// retranscribe).
func Refreshed(tr Transcriber, store *cache.Store) Transcriber {
	return &cached{tr: tr, store: store, fresh: true}
}

type cached struct {
	tr    Transcriber
	store *cache.Store
	fresh bool
}

func (c *cached) Provider() string { return c.tr.Provider() }
func (c *cached) Model() string    { return c.tr.Model() }

func (c *cached) Transcribe(ctx context.Context, a Audio) (*Transcript, error) {
	key := cache.Key(cache.ContentHash(a.Data), c.tr.Provider(), c.tr.Model(), a.Language, strconv.FormatBool(a.Timestamps))
	var t Transcript
	if !c.fresh {
		if ok, _ := c.store.Get(cache.Transcribe, key, &t); ok {
			return &t, nil
		}
	}
	res, err := c.tr.Transcribe(ctx, a)
	if err != nil {
		return nil, err
	}
	_ = c.store.Put(cache.Transcribe, key, res)
	return res, nil
}
