package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// Segment file, format 2. A segment is immutable once its manifest lists
// it. All integers and floats are little-endian; sections start at
// 64-byte boundaries (offsets from segLayout).
//
//	offset  size          field
//	0       8             magic "D2MVSEG\n"
//	8       4             uint32 segment version: 3 (this build writes it), or 2
//	12      4             uint32 dim
//	16      8             uint64 rows N (vectors)
//	24      8             uint64 tombstones T
//	32      4             uint32 CRC-32C of the meta sections (labels … bit factors)
//	36      4             uint32 CRC-32C of the vectors section
//	40      4             uint32 code bits B per vector (bitDims); zero in version 2
//	44      4             uint32 CRC-32C of bytes [0, 44)
//	labels  8·N           int64, strictly ascending
//	tombs   8·T           int64, strictly ascending: labels deleted from older segments
//	scales  4·N           float32 quantization scale per row
//	codes   S·N           int8 codes, S = codeStride(dim), zero padded
//	bits    B/8·32·⌈N/32⌉ one-bit codes in blocks of 32 rows (bits.go); version 3 only
//	bitf    128·⌈N/32⌉    float32 factors, 32 per block (bits.go); version 3 only
//	vecs    4·dim·N       float32 vectors, row i for label i
//
// The file size is exactly segLayout's end. A label in a segment shadows
// the same label (vector or tombstone) in every older segment. Version 2
// segments (earlier builds) have no one-bit codes: they are read and
// searched by their int8 codes, and a Writer rewrites them as version 3
// at its next Flush.
const (
	segMagic   = "D2MVSEG\n"
	segVersion = 3
	// segVersionNoBits is the version of segments without one-bit codes.
	segVersionNoBits = 2
	segHeader        = 48
)

// segLayout gives the section offsets of a segment.
type segLayout struct {
	labels, tombs, scales, codes, bits, bitf, vecs, end int64
}

// layoutOf lays out a segment of n rows of dim, t tombstones and nbits-bit
// codes (0: none, version 2).
func layoutOf(dim, n, t, nbits int) segLayout {
	al := func(x int64) int64 { return (x + 63) &^ 63 }
	var l segLayout
	l.labels = al(segHeader)
	l.tombs = al(l.labels + 8*int64(n))
	l.scales = al(l.tombs + 8*int64(t))
	l.codes = al(l.scales + 4*int64(n))
	l.bits = al(l.codes + int64(codeStride(dim))*int64(n))
	l.bitf = l.bits
	l.vecs = l.bits
	if nbits > 0 {
		nb := int64(bitBlocks(n))
		l.bitf = al(l.bits + int64(bitBlockBytes(nbits))*nb)
		l.vecs = al(l.bitf + 4*bitFacPerBlock*nb)
	}
	l.end = l.vecs + 4*int64(dim)*int64(n)
	return l
}

// segment is an open segment: its sections as slices of the file's
// read-only mapping (or of heap memory for a converted format-1 file).
type segment struct {
	seq    uint64
	dim    int
	stride int
	labels []int64
	tombs  []int64
	scales []float32
	codes  []int8
	// nbits is the length of the one-bit codes, 0 when the segment has
	// none (version 2); bits and bitf are their blocks and factors.
	nbits int
	bits  []byte
	bitf  []float32
	vecs  []float32
	size  int64
	// data is the file mapping (nil for heap segments).
	data []byte
	// ivf is the inverted file, built on demand (ivf.go).
	ivf ivfState
	// release unmaps the file; nil for heap segments.
	release func()
}

// rows returns the number of vectors.
func (s *segment) rows() int { return len(s.labels) }

// find returns the row of label, or -1.
func (s *segment) find(l int64) int {
	if i, ok := slices.BinarySearch(s.labels, l); ok {
		return i
	}
	return -1
}

// shadows reports whether the segment holds label l as a vector or a tombstone.
func (s *segment) shadows(l int64) bool {
	if s.find(l) >= 0 {
		return true
	}
	_, ok := slices.BinarySearch(s.tombs, l)
	return ok
}

// vec returns row i's float vector.
func (s *segment) vec(i int) []float32 { return s.vecs[i*s.dim : (i+1)*s.dim] }

// bitRow fills code with row i's one-bit code and returns its factor,
// computing them with enc when the segment has none (version 2).
func (s *segment) bitRow(i int, code []byte, enc *bitEncoder) float32 {
	if s.nbits > 0 {
		return getBitRow(s.bits, s.bitf, s.nbits, i, code)
	}
	return enc.encode(s.vec(i), code)
}

// segRow is one row to write: label, scale, code (len stride) and vector.
type segRow func(i int) (label int64, scale float32, code []int8, vec []float32)

// segBits fills code (nbits/8 bytes) with row i's one-bit code and returns
// its factor.
type segBits func(i int, code []byte) float32

// writeSegment writes a version-3 segment of n rows (ascending labels,
// given by row, one-bit codes by bits) and the ascending tombstones to path
// atomically (temp file, fsync, rename). It never leaves a partial file at
// path.
func writeSegment(path string, dim, n int, tombs []int64, row segRow, bits segBits) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".seg-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	_, nbits := bitDims(dim)
	lay := layoutOf(dim, n, len(tombs), nbits)
	if _, err := tmp.Seek(lay.labels, io.SeekStart); err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	var sum uint32
	off := lay.labels
	put := func(b []byte) error {
		sum = crc32.Update(sum, castagnoli, b)
		off += int64(len(b))
		_, err := w.Write(b)
		return err
	}
	pad := func(to int64) error { return put(make([]byte, to-off)) }
	var b8 [8]byte
	le := binary.LittleEndian
	for i := range n {
		l, _, _, _ := row(i)
		le.PutUint64(b8[:], uint64(l))
		if err := put(b8[:]); err != nil {
			return err
		}
	}
	if err := pad(lay.tombs); err != nil {
		return err
	}
	for _, l := range tombs {
		le.PutUint64(b8[:], uint64(l))
		if err := put(b8[:]); err != nil {
			return err
		}
	}
	if err := pad(lay.scales); err != nil {
		return err
	}
	for i := range n {
		_, s, _, _ := row(i)
		le.PutUint32(b8[:], math.Float32bits(s))
		if err := put(b8[:4]); err != nil {
			return err
		}
	}
	if err := pad(lay.codes); err != nil {
		return err
	}
	for i := range n {
		_, _, c, _ := row(i)
		if err := put(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), len(c))); err != nil {
			return err
		}
	}
	if err := pad(lay.bits); err != nil {
		return err
	}
	// One block of codes and factors at a time.
	bb := bitBlockBytes(nbits)
	blk := make([]byte, bb)
	fac := make([]float32, bitFacPerBlock)
	code := make([]byte, nbits/8)
	facBytes := make([]byte, 0, 4*bitFacPerBlock*bitBlocks(n))
	for b0 := 0; b0 < n; b0 += bitBlock {
		clear(blk)
		clear(fac)
		for i := b0; i < min(b0+bitBlock, n); i++ {
			putBitRow(blk, fac, nbits, i-b0, code, bits(i, code))
		}
		if err := put(blk); err != nil {
			return err
		}
		for _, f := range fac {
			facBytes = le.AppendUint32(facBytes, math.Float32bits(f))
		}
	}
	if err := pad(lay.bitf); err != nil {
		return err
	}
	if err := put(facBytes); err != nil {
		return err
	}
	facBytes = nil
	if err := pad(lay.vecs); err != nil {
		return err
	}
	metaSum := sum
	sum = 0
	fb := make([]byte, 4*dim)
	for i := range n {
		_, _, _, v := row(i)
		for j, x := range v {
			le.PutUint32(fb[4*j:], math.Float32bits(x))
		}
		if err := put(fb); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	h := make([]byte, segHeader)
	copy(h, segMagic)
	le.PutUint32(h[8:], segVersion)
	le.PutUint32(h[12:], uint32(dim))
	le.PutUint64(h[16:], uint64(n))
	le.PutUint64(h[24:], uint64(len(tombs)))
	le.PutUint32(h[32:], metaSum)
	le.PutUint32(h[36:], sum)
	le.PutUint32(h[40:], uint32(nbits))
	le.PutUint32(h[44:], crc32.Checksum(h[:44], castagnoli))
	if _, err := tmp.WriteAt(h, 0); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// openSegment maps the segment file at path and checks its header, size,
// order of labels and the checksum of the meta sections; full also checks
// the vectors' checksum (reading every float). dim is the manifest's.
func openSegment(path string, seq uint64, dim int, full bool) (*segment, error) {
	data, release, err := mmapfile.Map(path)
	if err != nil {
		return nil, err
	}
	s, err := parseSegment(data, dim, full)
	if err != nil {
		release()
		return nil, err
	}
	if full {
		mmapfile.Evict(data) // the checksum pass touched every page
	}
	s.seq, s.data, s.release = seq, data, sync.OnceFunc(release)
	// Unmapped when the last snapshot using it is collected, or earlier
	// by an owner that knows it is unused (release is idempotent).
	runtime.AddCleanup(s, func(r func()) { r() }, s.release)
	return s, nil
}

// openWritten is openSegment (meta checksum only) for a segment this
// process has just written, whose pages the checksum pass then drops: an
// index run writes and merges segments of hundreds of MB, and its resident
// set must not grow with them (a search faults back what it reads).
func openWritten(path string, seq uint64, dim int) (*segment, error) {
	g, err := openSegment(path, seq, dim, false)
	if err != nil {
		return nil, err
	}
	mmapfile.Evict(g.data)
	return g, nil
}

// parseSegment views a segment image (8-byte aligned) as a segment.
func parseSegment(b []byte, dim int, full bool) (*segment, error) {
	le := binary.LittleEndian
	if len(b) < segHeader || string(b[:8]) != segMagic {
		return nil, errors.New("not a vector segment (bad magic or truncated)")
	}
	if got, want := crc32.Checksum(b[:44], castagnoli), le.Uint32(b[44:]); got != want {
		return nil, fmt.Errorf("segment header checksum mismatch (%08x, want %08x)", got, want)
	}
	v := le.Uint32(b[8:])
	if v != segVersion && v != segVersionNoBits {
		return nil, fmt.Errorf("segment format version %d, want %d or %d", v, segVersionNoBits, segVersion)
	}
	if d := int(le.Uint32(b[12:])); d != dim {
		return nil, fmt.Errorf("segment dimension %d, manifest says %d", d, dim)
	}
	n64, t64 := le.Uint64(b[16:]), le.Uint64(b[24:])
	if n64 > 1<<31 || t64 > 1<<31 {
		return nil, fmt.Errorf("segment counts %d/%d out of range", n64, t64)
	}
	n, t := int(n64), int(t64)
	nbits := 0
	if v == segVersion {
		_, nbits = bitDims(dim)
		if got := int(le.Uint32(b[40:])); got != nbits {
			return nil, fmt.Errorf("segment has %d-bit codes, this build reads %d-bit codes for dimension %d", got, nbits, dim)
		}
	}
	lay := layoutOf(dim, n, t, nbits)
	if int64(len(b)) != lay.end {
		return nil, fmt.Errorf("segment is %d bytes, header promises %d (torn or truncated write)", len(b), lay.end)
	}
	if !littleEndian {
		return nil, errors.New("format-2 vector segments need a little-endian host")
	}
	if got := crc32.Checksum(b[lay.labels:lay.vecs], castagnoli); got != le.Uint32(b[32:]) {
		return nil, fmt.Errorf("segment checksum mismatch (labels/codes/bits)")
	}
	if full {
		if got := crc32.Checksum(b[lay.vecs:lay.end], castagnoli); got != le.Uint32(b[36:]) {
			return nil, fmt.Errorf("segment checksum mismatch (vectors)")
		}
	}
	s := &segment{dim: dim, stride: codeStride(dim), size: lay.end}
	s.labels = viewOf[int64](b, lay.labels, n)
	s.tombs = viewOf[int64](b, lay.tombs, t)
	s.scales = viewOf[float32](b, lay.scales, n)
	s.codes = viewOf[int8](b, lay.codes, n*s.stride)
	if nbits > 0 {
		nb := bitBlocks(n)
		s.nbits = nbits
		s.bits = viewOf[byte](b, lay.bits, nb*bitBlockBytes(nbits))
		s.bitf = viewOf[float32](b, lay.bitf, nb*bitFacPerBlock)
	}
	s.vecs = viewOf[float32](b, lay.vecs, n*dim)
	if !strictlyAscending(s.labels) || !strictlyAscending(s.tombs) {
		return nil, errors.New("segment labels are not strictly ascending")
	}
	return s, nil
}

// viewOf returns n elements of type T at byte offset off of b, in place.
func viewOf[T any](b []byte, off int64, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[off])), n)
}

func strictlyAscending(a []int64) bool {
	for i := 1; i < len(a); i++ {
		if a[i] <= a[i-1] {
			return false
		}
	}
	return true
}
