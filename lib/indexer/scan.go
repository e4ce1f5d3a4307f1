package indexer

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/exclude"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/scan"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
)

// ScanInput is what the scan stage needs besides the config.
type ScanInput struct {
	Root  string
	Dir   state.Dir
	Store *store.Store // nil when the state dir has no index yet
	// Rehash disables the size+mtime shortcut (policy change, reindex).
	Rehash bool
	// Warn receives non-fatal walk problems (unreadable directories, bad
	// file names); nil drops them.
	Warn func(relPath, msg string)
	// Loaded, if set, receives the indexed documents' states before the
	// first document is emitted (nil without a store).
	Loaded func(map[string]scan.Known)
	// OnDir, if set, is called with each directory before the walk lists
	// it (scan.Options.OnDir): a watcher registers it there.
	OnDir func(absDir string)
	// Preloaded, if set, holds the indexed states read ahead (Preload);
	// they are used when the store has not changed since.
	Preloaded *Preloaded
}

// Preloaded is the indexed documents' states read ahead of a run, and the
// store generation they belong to.
type Preloaded struct {
	done  chan struct{}
	gen   store.Generation
	known map[string]scan.Known // nil when the read failed or raced a write
}

// Preload reads the indexed states in the background, so a server starts
// its first run with them (0.03 s on the Go tree, 0.15 s on the Linux
// source, otherwise read when the run starts) while it gets ready to
// listen. A write to the store meanwhile makes the run read them again.
func Preload(ctx context.Context, st *store.Store) *Preloaded {
	p := &Preloaded{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		g1, err := st.Generation(ctx)
		if err != nil {
			return
		}
		known, err := loadKnown(ctx, st)
		if err != nil {
			return
		}
		if g2, err := st.Generation(ctx); err == nil && g2 == g1 {
			p.gen, p.known = g1, known
		}
	}()
	return p
}

// take returns the preloaded states if the store is still at their
// generation (the caller holds the writer locks), and lets them go.
func (p *Preloaded) take(ctx context.Context, st *store.Store) map[string]scan.Known {
	<-p.done
	known := p.known
	p.known = nil
	if known == nil {
		return nil
	}
	if g, err := st.Generation(ctx); err != nil || g != p.gen {
		return nil
	}
	return known
}

// loadKnown reads the indexed documents' states.
func loadKnown(ctx context.Context, st *store.Store) (map[string]scan.Known, error) {
	// Sized for every document row: growing a map of 78k paths would copy
	// it a dozen times.
	n, err := st.DocRowsBound(ctx)
	if err != nil {
		return nil, err
	}
	known := make(map[string]scan.Known, min(n, 1<<22))
	err = st.EachDocState(ctx, func(p string, s store.DocState) {
		known[p] = scan.Known{SizeBytes: s.SizeBytes, MtimeNs: s.MtimeNs, ContentHash: s.ContentHash, Status: s.Status,
			Code: s.Code, Reason: s.Reason, Deleted: s.Deleted, DocType: s.DocType, Lang: s.Lang}
	})
	return known, err
}

// Scan walks the root and emits one document record per file, plus deleted
// records for indexed paths that are gone. When ignore rules left nothing
// or almost nothing to index, it warns which rules and how to override
// them (scan.Stats.IgnoreHint).
func Scan(ctx context.Context, cfg *config.Config, in ScanInput, emit func(record.Document) error) (scan.Stats, error) {
	ex, err := exclude.New(cfg.Security.PathExcludes, cfg.Security.SecretPatterns)
	if err != nil {
		return scan.Stats{}, err
	}
	// The indexed states load while the walk lists directories and stats
	// files (they are compared once loaded).
	load := func() (map[string]scan.Known, error) {
		var known map[string]scan.Known
		if in.Store != nil && in.Preloaded != nil {
			known = in.Preloaded.take(ctx, in.Store)
		}
		if in.Store != nil && known == nil {
			var err error
			if known, err = loadKnown(ctx, in.Store); err != nil {
				return nil, err
			}
		}
		if in.Loaded != nil {
			in.Loaded(known)
		}
		return known, nil
	}
	st, err := scan.Walk(ctx, scan.Options{
		Root:           in.Root,
		StateDir:       in.Dir.Path,
		Gitignore:      cfg.Ingest.Gitignore,
		FollowSymlinks: cfg.Ingest.FollowSymlinks,
		Ignore:         cfg.Ingest.Ignore,
		SizeCaps:       SizeCaps(cfg),
		Exclude:        ex,
		LoadKnown:      load,
		Rehash:         in.Rehash,
		Warn:           in.Warn,
		OnDir:          in.OnDir,
	}, emit)
	if hint := st.IgnoreHint(); err == nil && hint != "" && in.Warn != nil {
		in.Warn("", hint)
	}
	return st, err
}

// SizeCaps returns the per-doc-type size cap in bytes from the config.
func SizeCaps(cfg *config.Config) func(docType string) int64 {
	return func(docType string) int64 {
		mb := cfg.Ingest.MaxFileMB
		if v, ok := cfg.Ingest.SizeCapsMB[docType]; ok {
			mb = v
		}
		if mb <= 0 {
			return 0
		}
		return int64(mb * 1024 * 1024)
	}
}

// PolicyChanged reports whether the stored scan policy differs from the one
// of cfg and the media engines m (true for an index that has never
// completed a run).
func PolicyChanged(ctx context.Context, s *store.Store, cfg *config.Config, m *Media) (bool, error) {
	if s == nil {
		return true, nil
	}
	v, err := s.Setting(ctx, store.KeyScanPolicy)
	if err != nil {
		return false, err
	}
	return v != PolicyFingerprintWith(cfg, m), nil
}

// SavePolicy records the scan policy of cfg and m after a complete run.
func SavePolicy(ctx context.Context, s *store.Store, cfg *config.Config, m *Media) error {
	return s.Update(ctx, func(tx *store.Tx) error {
		return tx.SetSetting(store.KeyScanPolicy, PolicyFingerprintWith(cfg, m))
	})
}
