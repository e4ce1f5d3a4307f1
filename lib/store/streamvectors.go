package store

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
)

// Vectors received from a stream (a serve replica, docs/scaling.md) wait in
// stream_vectors, keyed by what was embedded, until a chunk with that input
// takes them; they are written in the same transaction as the stream
// position, so a restarted replica neither loses nor re-reads one.
const createStreamVectors = `CREATE TABLE IF NOT EXISTS stream_vectors (
	key TEXT NOT NULL, model TEXT NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (key, model))`

// EnsureStreamVectors creates the stream_vectors table if missing.
func (s *Store) EnsureStreamVectors(ctx context.Context) error {
	return s.Update(ctx, func(tx *Tx) error {
		_, err := tx.tx.Exec(createStreamVectors)
		return err
	})
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
