package indexer

// The embed stage's vector files: opening and reconciling them with the
// store, sealing a clean run (so a restart need not re-read them), and
// flushing new vectors durably.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	"github.com/dir2mcp/dir2mcp/lib/vector"
)

func settingKeys(kind string) (model, dim string) {
	if kind == record.KindCode {
		return store.KeyEmbedCodeModel, store.KeyEmbedCodeDim
	}
	return store.KeyEmbedTextModel, store.KeyEmbedTextDim
}

func (e *Embedding) openKind(ctx context.Context, kind string, emb embed.Embedder) (*kindState, error) {
	ks := &kindState{kind: kind, emb: emb, lastFlush: time.Now()}
	sealed, err := e.verified(ctx, kind, emb)
	if err != nil || sealed != "" {
		ks.sealed = sealed
		return ks, err
	}
	return ks, e.openWriter(ctx, ks)
}

// writer returns the kind's vector writer, opening and reconciling the
// files first if Open left them closed.
func (e *Embedding) writer(ctx context.Context, ks *kindState) (*vector.Writer, error) {
	if ks.ix == nil {
		if err := e.openWriter(ctx, ks); err != nil {
			return nil, err
		}
	}
	return ks.ix, nil
}

// sealKey is the derived store value (store.SetDerived) recording that a
// kind's vector files and the store's embedded chunks were reconciled.
func sealKey(kind string) string { return "derived.vectors." + kind }

// seal describes the vector files of kind and the model they hold: what
// Seal records and verified compares.
func (e *Embedding) seal(kind string, emb embed.Embedder) (string, error) {
	d, err := vectorFilesDigest(e.Dir, kind)
	if err != nil {
		return "", err
	}
	return emb.ID() + "\n" + strconv.Itoa(emb.Dim()) + "\n" + d, nil
}

// verified returns the kind's seal when its vector files are reconciled
// with the store already: Seal recorded them at the current generation,
// with the same model, and they have not changed since; "" otherwise.
func (e *Embedding) verified(ctx context.Context, kind string, emb embed.Embedder) (string, error) {
	v, at, now, ok, err := e.Store.Derived(ctx, sealKey(kind))
	if err != nil || !ok || at != now {
		return "", err
	}
	cur, err := e.seal(kind, emb)
	if err != nil || cur != v {
		return "", nil // reconcile, which reports the problem
	}
	return cur, nil
}

// Seal records, after a run that ended without error (every pending chunk
// embedded or failed, every flush done), that the vector files and the
// store's embedded chunks agree, so the next Open need not compare them.
// It writes nothing when the record is current (a no-op run).
func (e *Embedding) Seal(ctx context.Context) error {
	for _, kind := range []string{record.KindText, record.KindCode} {
		ks := e.kinds[kind]
		if ks == nil {
			continue
		}
		v, at, now, ok, err := e.Store.Derived(ctx, sealKey(kind))
		if err != nil {
			return err
		}
		cur := ks.sealed // the files were not opened: as Open verified them
		if ks.ix != nil || cur == "" {
			if cur, err = e.seal(kind, ks.emb); err != nil {
				return err
			}
		}
		if ok && at == now && v == cur {
			continue
		}
		if err := e.Store.SetDerived(ctx, sealKey(kind), now, cur); err != nil {
			return err
		}
	}
	return nil
}

// vectorFilesDigest fingerprints a kind's vector files: the manifest's
// bytes and each segment file's name, size and modification time
// (segments are immutable once listed; a new one has a new name).
func vectorFilesDigest(dir state.Dir, kind string) (string, error) {
	h := sha256.New()
	b, err := os.ReadFile(dir.Join(vector.FileName(kind)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		h.Write([]byte("no manifest\n"))
	case err != nil:
		return "", err
	default:
		fmt.Fprintf(h, "manifest %d\n", len(b))
		h.Write(b)
	}
	ents, err := os.ReadDir(dir.Join(vector.SegmentDir(kind)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	for _, de := range ents {
		fi, err := de.Info()
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%q %d %d %v\n", de.Name(), fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openWriter opens the kind's vector files (verifying every segment) and
// reconciles them with the store.
func (e *Embedding) openWriter(ctx context.Context, ks *kindState) error {
	kind, emb := ks.kind, ks.emb
	path := e.Dir.Join(vector.FileName(kind))
	modelKey, dimKey := settingKeys(kind)
	stored, err := e.Store.Setting(ctx, modelKey)
	if err != nil {
		return err
	}
	storedDim, err := e.Store.Setting(ctx, dimKey)
	if err != nil {
		return err
	}
	ix, err := vector.OpenWriter(path)
	reset := ""
	if err != nil {
		// An unreadable manifest (corrupt, or a version this build does
		// not read) is replaced by a new index.
		reset = fmt.Sprintf("vector file %s is unreadable (%v)", path, err)
		if rmErr := os.Remove(path); rmErr != nil && !os.IsNotExist(rmErr) {
			return err
		}
		if ix, err = vector.OpenWriter(path); err != nil {
			return err
		}
	}
	for _, d := range ix.Dropped() {
		e.Events.Emit(events.Warn, record.EvNotice, map[string]any{
			"message": fmt.Sprintf("vector segment of %s dropped: %s; its chunks are embedded again", path, d), "kind": kind,
		})
	}
	switch {
	case reset != "":
	case ix.Model() != "" && (ix.Model() != emb.ID() || ix.Dim() != emb.Dim()):
		reset = fmt.Sprintf("embedding model for %s changed from %s (%d-d) to %s (%d-d)", kind, ix.Model(), ix.Dim(), emb.ID(), emb.Dim())
	case stored != "" && stored != emb.ID():
		reset = fmt.Sprintf("embedding model for %s changed from %s to %s", kind, stored, emb.ID())
	}
	if reset != "" || ix.Model() == "" {
		if err := ix.Reset(emb.ID(), emb.Dim()); err != nil {
			return err
		}
	}
	// Reconcile the store with the file.
	have, err := e.Store.EmbeddedIDs(ctx, kind, emb.ID())
	if err != nil {
		return err
	}
	labels := ix.Labels() // ascending
	var missing []int64
	if reset == "" {
		for id := range have {
			if _, ok := slices.BinarySearch(labels, id); !ok {
				missing = append(missing, id)
			}
		}
	}
	var stale []int64
	for _, l := range labels {
		if _, ok := have[l]; !ok {
			stale = append(stale, l)
		}
	}
	ix.Delete(stale...)
	var n int64
	dim := strconv.Itoa(emb.Dim())
	if reset == "" && len(missing) == 0 && stored == emb.ID() && storedDim == dim {
		// Nothing to write: the store's content (and its generation,
		// which the derived values are keyed by) stays as it is.
		ks.ix = ix
		return nil
	}
	err = e.Store.Update(ctx, func(tx *store.Tx) error {
		n = 0
		if reset != "" {
			c, err := tx.ResetEmbeddings(kind)
			if err != nil {
				return err
			}
			n = c
		} else if len(missing) > 0 {
			if err := tx.MarkPending(missing); err != nil {
				return err
			}
			n = int64(len(missing))
		}
		if err := tx.SetSetting(modelKey, emb.ID()); err != nil {
			return err
		}
		return tx.SetSetting(dimKey, dim)
	})
	if err != nil {
		return err
	}
	if reset != "" {
		e.Events.Emit(events.Warn, record.EvNotice, map[string]any{
			"message": fmt.Sprintf("%s: re-embedding %d chunks (vectors of different models are never mixed)", reset, n),
			"kind":    kind, "reembed": n,
		})
	} else if len(missing) > 0 {
		e.Events.Emit(events.Warn, record.EvNotice, map[string]any{
			"message": fmt.Sprintf("%d %s chunks were marked embedded but have no vector in %s: re-embedding them", len(missing), kind, path),
			"kind":    kind, "reembed": len(missing),
		})
	}
	ks.ix = ix
	return nil
}

// DefaultMaxPending is Embedding.MaxPending's default: 32 MiB, about 5,500
// vectors of 1536 dimensions or 16,000 of 512.
const DefaultMaxPending = 32 << 20

// maybeFlush writes the vector file when enough time has passed, or when
// the unflushed vectors reach MaxPending; the interval grows with the cost
// of a write so large indexes are not rewritten constantly.
func (e *Embedding) maybeFlush(ctx context.Context, ks *kindState) error {
	maxPending := e.MaxPending
	if maxPending <= 0 {
		maxPending = DefaultMaxPending
	}
	if ks.ix.PendingBytes() >= maxPending {
		return e.flush(ctx, ks)
	}
	min := e.MinFlush
	if min <= 0 {
		min = 2 * time.Second
	}
	if d := 10 * ks.flushCost; d > min {
		min = d
	}
	if time.Since(ks.lastFlush) < min {
		return nil
	}
	return e.flush(ctx, ks)
}

func (e *Embedding) flushAll(ctx context.Context) error {
	for _, kind := range []string{record.KindCode, record.KindText} {
		if ks := e.kinds[kind]; ks != nil {
			if err := e.flush(ctx, ks); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush drops the vectors of deleted chunks, makes the new vectors durable
// (vector.Writer.Flush: one new segment, not a rewrite), then marks the
// newly embedded chunks in the store and purges the deleted chunk rows.
// Its cost grows with what changed since the last flush, not with the
// index (Open reconciles the whole index with the store once).
func (e *Embedding) flush(ctx context.Context, ks *kindState) error {
	start := time.Now()
	gone, err := e.Store.DeletedChunkIDs(ctx, ks.kind)
	if err != nil {
		return err
	}
	if ks.ix == nil && len(gone) == 0 && len(ks.unflushed) == 0 {
		return nil // the files were verified and nothing changed
	}
	if _, err := e.writer(ctx, ks); err != nil {
		return err
	}
	dropped := ks.ix.Delete(gone...)
	if len(ks.unflushed) == 0 && dropped == 0 && !ks.ix.Dirty() {
		return nil
	}
	if err := ks.ix.Flush(); err != nil {
		return err
	}
	ids := ks.unflushed
	err = e.Store.Update(ctx, func(tx *store.Tx) error {
		if err := tx.MarkEmbedded(ids, ks.emb.ID()); err != nil {
			return err
		}
		_, err := tx.PurgeDeletedChunks(ks.kind)
		return err
	})
	if err != nil {
		return err
	}
	e.Progress.Embedded.Add(int64(len(ids)))
	if e.Flushed != nil {
		e.Flushed(ks.kind)
	}
	ks.unflushed = nil
	ks.lastFlush = time.Now()
	ks.flushCost = time.Since(start)
	return nil
}
