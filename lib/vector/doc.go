// Package vector holds dir2mcp's vector indices (SPEC §6): one per index
// kind in the state dir, each mapping a chunk_id label to one float32
// embedding.
//
// Format 2 (this build writes it) is a manifest, FileName(kind) =
// "vectors_<kind>.flat", listing immutable segment files in
// SegmentDir(kind) = "vectors_<kind>.segs/" (manifest.go, segment.go). A
// segment holds sorted labels, tombstones for labels of older segments,
// per-vector int8 codes with their scales (quant.go) and the float32
// vectors. A Writer appends one segment per flush, fsyncs it, then
// replaces the manifest atomically, and merges segments when they pile up
// (compact.go); so memory holds only unflushed vectors and a flush writes
// only what changed. Torn or corrupt segments are detected by checksums.
//
// Readers (Open, Reloader) memory-map the segments read-only: a Snapshot
// costs a bitmap of dead rows in the heap, and only the pages queries
// touch become resident. Search scans the int8 codes (an AVX2 kernel on
// amd64) for rescoreCount(k) candidates and scores those exactly from the
// float32 vectors, so every returned score is an exact cosine and the top
// k equals the exact scan's unless quantization pushes a true top-k vector
// below the candidates (measured: recall@10 1.000 on the eval sets'
// queries; BenchmarkRecallEvalQueries). Dot is always exact. Inverted
// files (ivf.go) exist for very large indexes but are off by default.
//
// Format 1, the single-file index of earlier builds (format.go, file.go,
// the in-memory Index), is still read: a Reloader loads it whole, and the
// next Writer flush converts it to format 2. Vectors are L2-normalised by
// their embedder, so dot products are cosine similarities.
package vector
