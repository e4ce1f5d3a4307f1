// Package vector holds dir2mcp's vector indices (SPEC §6): one per index
// kind in the state dir, each mapping a chunk_id label to one float32
// embedding.
//
// Format 2 (this build writes it) is a manifest, FileName(kind) =
// "vectors_<kind>.flat", listing immutable segment files in
// SegmentDir(kind) = "vectors_<kind>.segs/" (manifest.go, segment.go). A
// segment holds sorted labels, tombstones for labels of older segments,
// per-vector int8 codes with their scales (quant.go), one-bit codes with
// one factor per vector (bits.go; segment version 3) and the float32
// vectors. A Writer appends one segment per flush, fsyncs it, then
// replaces the manifest atomically, and merges segments when they pile up
// (compact.go); so memory holds only unflushed vectors (the caller bounds
// them: Writer.PendingBytes) and a flush writes only what changed. Torn or
// corrupt segments are detected by checksums.
//
// Readers (Open, Reloader) memory-map the segments read-only: a Snapshot
// costs a bitmap of dead rows in the heap, and only the pages queries
// touch become resident. Search has two paths, and Dot is always exact:
//
//   - the int8 path (indexes of fewer than ApproxMinVectors = 4096 live
//     vectors, vectors of at most 256 dimensions, segments of earlier
//     builds): scan the int8 codes of every row (an AVX2 kernel on amd64)
//     for rescoreCount(k) candidates and score those exactly from the
//     float32 vectors; the top k equals the exact scan's unless
//     quantization pushes a true top-k vector below the candidates
//     (recall@10 1.000 on the eval sets' queries).
//   - the approximate path (Snapshot.Approximate): scan the one-bit codes
//     (68 bytes a row at 512 dimensions, against 516 for the int8 code) for
//     bitCount(k) candidates, re-score those by their int8 codes, and the
//     best approxRescoreCount(k) of those exactly. A true top-k vector
//     whose one-bit estimate ranks below the candidates is missed:
//     recall@10 against the exact scan is measured at 0.989–1.000 on the
//     bench queries and held-out vectors of the Go tree and the Linux
//     source (BenchmarkStateSearch, BenchmarkApproxBySize, the scale
//     bench's "vector recall@10" row).
//
// Every returned score is an exact float32 cosine on both paths; the
// stats tool names the path (index_kind). Inverted files (ivf.go) exist
// for very large indexes but are off by default.
//
// Segment version 2 (no one-bit codes) is still read and searched by its
// int8 codes; a Writer's next Flush rewrites such segments as version 3.
// Format 1, the single-file index of earlier builds (format.go, file.go,
// the in-memory Index), is still read: a Reloader loads it whole, and the
// next Writer flush converts it to format 2. Vectors are L2-normalised by
// their embedder, so dot products are cosine similarities.
package vector
