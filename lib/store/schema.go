package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// SchemaVersion is the schema this build writes (PRAGMA user_version).
// A store with a higher version was written by a newer dir2mcp and is refused
// with INDEX_VERSION_MISMATCH; lower versions are migrated forward in order.
const SchemaVersion = 6

// migrations[i] upgrades a store from version i to i+1.
var migrations = []string{
	// 0 → 1: initial schema (SPEC §5).
	`
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE documents (
  doc_id       INTEGER PRIMARY KEY,
  rel_path     TEXT NOT NULL UNIQUE,
  source_type  TEXT NOT NULL DEFAULT 'file',
  doc_type     TEXT NOT NULL,
  lang         TEXT NOT NULL DEFAULT '',
  size_bytes   INTEGER NOT NULL DEFAULT 0,
  mtime_unix   INTEGER NOT NULL DEFAULT 0,
  mtime_ns     INTEGER NOT NULL DEFAULT 0,
  content_hash TEXT NOT NULL DEFAULT '',
  status       TEXT NOT NULL DEFAULT 'ok',
  error_code   TEXT,
  error        TEXT,
  title        TEXT NOT NULL DEFAULT '',
  deleted      INTEGER NOT NULL DEFAULT 0,
  updated_unix INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE representations (
  rep_id       INTEGER PRIMARY KEY,
  doc_id       INTEGER NOT NULL REFERENCES documents(doc_id),
  rep_type     TEXT NOT NULL,
  rep_hash     TEXT NOT NULL,
  created_unix INTEGER NOT NULL,
  meta_json    TEXT NOT NULL DEFAULT '{}',
  content      TEXT,
  deleted      INTEGER NOT NULL DEFAULT 0,
  UNIQUE (doc_id, rep_type)
);
CREATE TABLE chunks (
  chunk_id         INTEGER PRIMARY KEY AUTOINCREMENT,
  rep_id           INTEGER NOT NULL REFERENCES representations(rep_id),
  doc_id           INTEGER NOT NULL REFERENCES documents(doc_id),
  ordinal          INTEGER NOT NULL,
  text             TEXT NOT NULL,
  text_hash        TEXT NOT NULL,
  tokens_est       INTEGER NOT NULL DEFAULT 0,
  index_kind       TEXT NOT NULL,
  embedding_status TEXT NOT NULL DEFAULT 'pending',
  embedding_error  TEXT,
  embed_model      TEXT,
  deleted          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX chunks_by_rep ON chunks(rep_id);
CREATE INDEX chunks_by_doc ON chunks(doc_id);
CREATE INDEX chunks_pending ON chunks(index_kind, chunk_id) WHERE embedding_status = 'pending' AND deleted = 0;
CREATE TABLE spans (
  chunk_id   INTEGER NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
  span_kind  TEXT NOT NULL,
  start      INTEGER NOT NULL,
  "end"      INTEGER NOT NULL,
  extra_json TEXT
);
CREATE INDEX spans_by_chunk ON spans(chunk_id);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  path, title, body,
  content = '', contentless_delete = 1,
  tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'"
);
CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');
`,
	// 1 → 2: what MCP resources describe a file with. Forgetting the scan
	// policy makes the next index run re-extract every document (chunks with
	// unchanged text keep their vectors), which fills the new columns.
	`
ALTER TABLE documents ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN tags TEXT NOT NULL DEFAULT '';
DELETE FROM settings WHERE key = 'scan_policy';
`,
	// 2 → 3: a covering index for the live-chunk counts of stats, status and
	// search's term statistics, which otherwise read every chunk's text.
	// deleted comes last so the planner never prefers it to a rowid lookup.
	`
CREATE INDEX chunks_counts ON chunks(index_kind, embedding_status, deleted);
`,
	// 3 → 4: a chunk's context (the headings it sits under), indexed with
	// the title and embedded with the text. Forgetting the scan policy makes
	// the next run re-extract every document, which fills it.
	`
ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
DELETE FROM settings WHERE key = 'scan_policy';
`,
	// 4 → 5: the live-chunk index also covers embed_model, so the ids of
	// the chunks a model embedded (read when an index run starts) come
	// from the index alone instead of every chunk's row, where
	// embed_model sits behind the text.
	`
DROP INDEX chunks_counts;
CREATE INDEX chunks_counts ON chunks(index_kind, embedding_status, deleted, embed_model);
`,
	// 5 → 6: the keyword index moves out of SQLite into postings files
	// (lib/postings), which apply the changes the store logs; the index
	// is rebuilt from the chunks once, and tied to this store by its id.
	`
DROP TABLE IF EXISTS chunks_fts_vocab;
DROP TABLE IF EXISTS chunks_fts;
CREATE TABLE postings_log (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  chunk_id INTEGER NOT NULL
);
INSERT INTO settings (key, value) VALUES ('store_id', lower(hex(randomblob(16))))
  ON CONFLICT(key) DO NOTHING;
`,
}

// SchemaDDL returns the full schema definition (all migrations), so
// tools that cache indexes can key them by it.
func SchemaDDL() string { return strings.Join(migrations, "\n") }

// migrate brings the schema to SchemaVersion in one transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "read schema version: %v", err)
	}
	if v > SchemaVersion {
		return errcode.New(errcode.IndexVersionMismatch,
			"index schema version %d is newer than this dir2mcp supports (%d); upgrade dir2mcp, or run `dir2mcp reindex --force` (moves the old index aside and builds a new one)", v, SchemaVersion)
	}
	if v == SchemaVersion {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Re-read under the write lock: another process may have migrated.
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return err
	}
	for ; v < SchemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return errcode.Wrap(errcode.StoreCorrupt, err, "migrate schema %d→%d: %v", v, v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO settings(key, value) VALUES ('index_format_version', ?)
		 ON CONFLICT(key) DO UPDATE SET value = excluded.value`, fmt.Sprint(SchemaVersion)); err != nil {
		return err
	}
	// Values derived from the content (derived.go) are recomputed.
	if _, err := tx.ExecContext(ctx, bumpGeneration); err != nil {
		return err
	}
	return tx.Commit()
}
