package store

import (
	"context"
	"database/sql"
	"errors"
)

// Well-known settings keys (SPEC §5.5 plus dir2mcp's own).
const (
	KeyProtocolVersion = "protocol_version"
	KeyCorpusID        = "corpus_id"
	KeyIndexFormat     = "index_format_version"
	KeyEmbedTextModel  = "embed_text_model"
	KeyEmbedTextDim    = "embed_text_dim"
	KeyEmbedCodeModel  = "embed_code_model"
	KeyEmbedCodeDim    = "embed_code_dim"
	KeyOCRModel        = "ocr_model"
	KeySTTProvider     = "stt_provider"
	KeySTTModel        = "stt_model"
	KeyChatModel       = "chat_model"
	// KeyScanPolicy fingerprints the settings that decide which files are
	// indexed and how they are chunked; a change forces a full re-check.
	KeyScanPolicy = "scan_policy"
)

// Setting returns the value for key, or "" when unset.
func (s *Store) Setting(ctx context.Context, key string) (string, error) {
	v, _, err := settingIn(ctx, s.rd, key)
	return v, err
}

// queryer reads one row: a *sql.DB or a *sql.Tx.
type queryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

// settingIn returns the value of key as q reads it (ok false when unset).
func settingIn(ctx context.Context, q queryer, key string) (v string, ok bool, err error) {
	err = q.QueryRowContext(ctx, "SELECT value FROM settings WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return v, err == nil, wrapRead(err, "read setting "+key)
}

// SetSetting stores key=value inside tx.
func (tx *Tx) SetSetting(key, value string) error {
	_, err := tx.tx.Exec(`INSERT INTO settings(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	return err
}

// Generation identifies a state of the store's content: it changes with
// every committed write, so readers can cache derived statistics per
// generation.
type Generation int64

const bumpGeneration = `INSERT INTO settings(key, value) VALUES ('generation', 1)
	ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`

// Generation returns the current content generation.
func (s *Store) Generation(ctx context.Context) (Generation, error) { return generationIn(ctx, s.rd) }

// generationIn returns the content generation as q reads it.
func generationIn(ctx context.Context, q queryer) (Generation, error) {
	var g int64
	err := q.QueryRowContext(ctx, "SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'generation'").Scan(&g)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return Generation(g), wrapRead(err, "read generation")
}
