// Package vector holds dir2mcp's vector indices (SPEC §6): one file per
// index kind in the state dir (FileName("text") = "vectors_text.flat",
// FileName("code") = "vectors_code.flat"), each mapping a chunk_id label
// to one float32 embedding.
//
// Search is exact, not approximate: it scores every stored vector with a
// SIMD dot product (vek32) over contiguous memory and keeps a partial
// top-k heap. Vectors are L2-normalised by their embedder, so scores are
// cosine similarities.
//
// A file is a small checksummed header (magic, format version, element
// type, dimension, count, model id), the labels as int64, the vectors as
// float32, and a trailing CRC-32C of the body; see format.go for the byte
// layout. Writers replace a file atomically (temp file, fsync, rename,
// fsync dir); a torn or corrupt file is reported as STORE_CORRUPT naming
// the file. Loading reads the file once and, on little-endian hosts, uses
// the bytes as vectors in place.
//
// A Reloader gives a server the newest complete index without ever making
// a request wait for a load.
package vector
