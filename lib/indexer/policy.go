package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/dir2mcp/dir2mcp/lib/config"
)

// extractorVersion changes whenever extraction or chunking output changes
// for the same input, forcing representations to be rebuilt.
const extractorVersion = "raw_text/5"

// mediaVersion changes whenever PDF, image, audio or archive extraction
// changes for the same input.
const mediaVersion = "media/1"

// PolicyFingerprint hashes every setting that decides which files are
// indexed and how their text is chunked, for an index built without media
// engines (see PolicyFingerprintWith).
func PolicyFingerprint(cfg *config.Config) string { return PolicyFingerprintWith(cfg, nil) }

// PolicyFingerprintWith hashes every setting that decides which files are
// indexed and how their text is made, masked (security.redact) and chunked, including the media
// engines available (OCR, speech-to-text) and the ingest modes. When it
// differs from the one stored after the last complete run, scan re-reads
// every file and extract rebuilds every representation (chunks with
// unchanged text keep their vectors, and OCR and transcripts come from the
// cache), so configuring a provider processes the documents that waited
// for one.
func PolicyFingerprintWith(cfg *config.Config, m *Media) string {
	v := struct {
		Extractor      string
		Gitignore      bool
		FollowSymlinks bool
		Ignore         []string
		MaxFileMB      float64
		SizeCaps       map[string]float64
		PathExcludes   []string
		SecretPatterns []string
		Redact         config.RedactConfig
		Chunking       config.ChunkingConfig
		Awaiting       []string
		Media          string
		Modes          []string
		Engines        []string
	}{
		extractorVersion, cfg.Ingest.Gitignore, cfg.Ingest.FollowSymlinks, cfg.Ingest.Ignore,
		cfg.Ingest.MaxFileMB, cfg.Ingest.SizeCapsMB, cfg.Security.PathExcludes, cfg.Security.SecretPatterns,
		cfg.Security.Redact, cfg.Chunking, awaitingTypes(cfg, m), mediaVersion,
		[]string{cfg.Ingest.PDF.Mode, cfg.Ingest.Images.Mode, cfg.Ingest.Audio.Mode, cfg.Ingest.Archives.Mode},
		m.identity(),
	}
	b, _ := json.Marshal(v) // map keys marshal sorted: deterministic
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}
