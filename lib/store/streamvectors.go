package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"strings"
)

// Vectors received from a stream (a serve replica, docs/scaling.md) wait in
// stream_vectors, keyed by what was embedded, until a chunk with that input
// takes them; they are written in the same transaction as the stream
// position, so a restarted replica neither loses nor re-reads one.
//
// stream_sources keeps the bytes of each document a replica indexed, so
// open_file answers on a host that does not have the file.
const createStreamTables = `CREATE TABLE IF NOT EXISTS stream_vectors (
	key TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (key, model));
CREATE TABLE IF NOT EXISTS stream_sources (rel_path TEXT PRIMARY KEY, data BLOB NOT NULL)`

// EnsureStreamTables creates the tables of a replica if missing.
func (s *Store) EnsureStreamTables(ctx context.Context) error {
	return s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.Exec(createStreamTables)
		return err
	})
}

// PutStreamSource stores a document's bytes (nil removes them).
func (tx *Tx) PutStreamSource(relPath string, data []byte) error {
	if data == nil {
		_, err := tx.tx.Exec(`DELETE FROM stream_sources WHERE rel_path = ?`, relPath)
		return err
	}
	_, err := tx.tx.Exec(`INSERT OR REPLACE INTO stream_sources(rel_path, data) VALUES (?, ?)`, relPath, data)
	return err
}

// StreamSource returns the stored bytes of a document; ok is false when
// there are none (or this is not a replica's store).
func (s *Store) StreamSource(ctx context.Context, relPath string) (data []byte, ok bool, err error) {
	err = s.rd.QueryRowContext(ctx, `SELECT data FROM stream_sources WHERE rel_path = ?`, relPath).Scan(&data)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) || strings.Contains(err.Error(), "no such table") {
			return nil, false, nil
		}
		return nil, false, wrapRead(err, "read stored source")
	}
	return data, true, nil
}

// PutStreamVector stores the vector of key under model, replacing one.
func (tx *Tx) PutStreamVector(key, model string, vec []float32) error {
	b := make([]byte, 4*len(vec))
	for i, f := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	_, err := tx.tx.Exec(`INSERT OR REPLACE INTO stream_vectors(key, model, vec) VALUES (?, ?, ?)`, key, model, b)
	return err
}

// StreamVectors returns the stored vectors of model among keys.
func (s *Store) StreamVectors(ctx context.Context, model string, keys []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(keys))
	for len(keys) > 0 {
		n := min(len(keys), 500)
		args := []any{model}
		for _, k := range keys[:n] {
			args = append(args, k)
		}
		rows, err := s.rd.QueryContext(ctx, `SELECT key, vec FROM stream_vectors WHERE model = ? AND key IN (?`+
			strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, wrapRead(err, "read stream vectors")
		}
		for rows.Next() {
			var k string
			var b []byte
			if err := rows.Scan(&k, &b); err != nil {
				rows.Close()
				return nil, wrapRead(err, "read stream vectors")
			}
			v := make([]float32, len(b)/4)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
			out[k] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, wrapRead(err, "read stream vectors")
		}
		keys = keys[n:]
	}
	return out, nil
}

// PendingChunksOf returns the live pending chunks of the documents at
// relPaths (a replica looking for the chunks a batch of vectors is for).
func (s *Store) PendingChunksOf(ctx context.Context, relPaths []string) ([]PendingChunk, error) {
	var out []PendingChunk
	for len(relPaths) > 0 {
		n := min(len(relPaths), 500)
		args := make([]any, n)
		for i, p := range relPaths[:n] {
			args[i] = p
		}
		rows, err := s.rd.QueryContext(ctx, `
SELECT c.chunk_id, c.text, c.context, c.index_kind, d.rel_path, d.doc_type, d.lang
FROM documents d JOIN chunks c ON c.doc_id = d.doc_id
WHERE d.rel_path IN (?`+strings.Repeat(",?", n-1)+`) AND c.embedding_status = 'pending' AND c.deleted = 0
ORDER BY c.chunk_id`, args...)
		if err != nil {
			return nil, wrapRead(err, "read pending chunks")
		}
		for rows.Next() {
			var p PendingChunk
			if err := rows.Scan(&p.ChunkID, &p.Text, &p.Context, &p.IndexKind, &p.RelPath, &p.DocType, &p.Lang); err != nil {
				rows.Close()
				return nil, wrapRead(err, "read pending chunks")
			}
			out = append(out, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, wrapRead(err, "read pending chunks")
		}
		relPaths = relPaths[n:]
	}
	return out, nil
}
