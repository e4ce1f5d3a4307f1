package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/dir2mcp/dir2mcp/lib/config"
)

// extractorVersion changes whenever extraction or chunking output changes
// for the same input, forcing representations to be rebuilt.
const extractorVersion = "raw_text/1"

// PolicyFingerprint hashes every setting that decides which files are indexed
// and how their text is chunked. When it differs from the one stored after
// the last complete run, scan re-reads every file and extract rebuilds every
// representation (chunks with unchanged text still keep their vectors).
func PolicyFingerprint(cfg *config.Config) string {
	v := struct {
		Extractor      string
		Gitignore      bool
		FollowSymlinks bool
		Ignore         []string
		MaxFileMB      float64
		SizeCaps       map[string]float64
		PathExcludes   []string
		SecretPatterns []string
		Chunking       config.ChunkingConfig
		Awaiting       []string
	}{
		extractorVersion, cfg.Ingest.Gitignore, cfg.Ingest.FollowSymlinks, cfg.Ingest.Ignore,
		cfg.Ingest.MaxFileMB, cfg.Ingest.SizeCapsMB, cfg.Security.PathExcludes, cfg.Security.SecretPatterns,
		cfg.Chunking, awaitingTypes(cfg),
	}
	b, _ := json.Marshal(v) // map keys marshal sorted: deterministic
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}
