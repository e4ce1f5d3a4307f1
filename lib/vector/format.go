package vector

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"
)

// Legacy on-disk format, version 1: the whole index in one file. This
// build reads it (Load, and a Reloader or Writer given such a file) and
// writes it only through Index.WriteFile; the served format is 2 (see
// manifest.go and segment.go).
// All integers and floats are little-endian.
//
//	offset    size      field
//	0         8         magic "D2MVEC\x1a\n"
//	8         4         uint32 format version (1)
//	12        4         uint32 element type (1 = float32)
//	16        4         uint32 dim (1..MaxDim)
//	20        4         uint32 model id length M (0..MaxModelLen)
//	24        8         uint64 count N (number of vectors)
//	32        M         model id, UTF-8 (the embedder's ID)
//	32+M      pad       zero bytes up to the next multiple of 8 (= H)
//	H         4         uint32 CRC-32C (Castagnoli) of bytes [0, H)
//	H+4       4         uint32 reserved, zero
//	B = H+8   8·N       labels, int64 (chunk_id), one per vector, distinct
//	B+8N      4·N·dim   vectors, float32, row-major: vector i is elements [i·dim, (i+1)·dim)
//	E-8       4         uint32 CRC-32C of the body [B, E-8)
//	E-4       4         trailer magic "DEND"
//
// The body starts at an 8-byte boundary so a file read into 8-byte aligned
// memory can be viewed as []int64 and []float32 without copying. The file
// size is exactly E = B + 8N + 4N·dim + 8; anything else is a torn or
// corrupt file.
const (
	// Magic starts every vector index file.
	Magic = "D2MVEC\x1a\n"
	// ElemFloat32 is the element type code for float32 vectors.
	ElemFloat32 = 1
	// MaxDim is the largest supported vector dimension.
	MaxDim = 1 << 16
	// MaxModelLen is the longest model id, in bytes.
	MaxModelLen = 1024

	trailerMagic = "DEND"
	fixedHeader  = 32
	trailerSize  = 8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// littleEndian reports whether the host stores integers little-endian, in
// which case file bytes are used as vectors in place.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// header is the decoded fixed part of a file.
type header struct {
	version uint32
	elem    uint32
	dim     int
	count   int
	model   string
	// bodyOff is B, the offset of the first label.
	bodyOff int
}

// headerLen returns H+8, the offset of the body for a model id of length m.
func headerLen(m int) int {
	return (fixedHeader+m+7)&^7 + 8
}

// fileSize returns the exact size of a file with the given shape, or -1
// when it would overflow int64.
func fileSize(modelLen, dim, count int) int64 {
	if count < 0 || dim <= 0 {
		return -1
	}
	per := int64(8 + 4*dim)
	body := int64(count)
	if body > (math.MaxInt64-int64(headerLen(modelLen))-trailerSize)/per {
		return -1
	}
	return int64(headerLen(modelLen)) + body*per + trailerSize
}

// encodeHeader returns the header bytes [0, B) for a model, dim and count.
func encodeHeader(model string, dim, count int) []byte {
	b := make([]byte, headerLen(len(model)))
	copy(b, Magic)
	le := binary.LittleEndian
	le.PutUint32(b[8:], LegacyVersion)
	le.PutUint32(b[12:], ElemFloat32)
	le.PutUint32(b[16:], uint32(dim))
	le.PutUint32(b[20:], uint32(len(model)))
	le.PutUint64(b[24:], uint64(count))
	copy(b[fixedHeader:], model)
	h := len(b) - 8
	le.PutUint32(b[h:], crc32.Checksum(b[:h], castagnoli))
	return b
}

// decodeHeader parses and verifies the header at the start of b, where
// size is the full file size. Errors are plain; the caller adds the file
// name and code.
func decodeHeader(b []byte, size int64) (header, error) {
	var hd header
	if len(b) < fixedHeader || string(b[:8]) != Magic {
		return hd, errNotVectorFile
	}
	le := binary.LittleEndian
	m := int(le.Uint32(b[20:]))
	if m > MaxModelLen {
		return hd, fmt.Errorf("model id length %d exceeds %d", m, MaxModelLen)
	}
	hl := headerLen(m)
	if len(b) < hl {
		return hd, fmt.Errorf("truncated header (%d of %d bytes)", len(b), hl)
	}
	hd.version = le.Uint32(b[8:])
	if hd.version == FormatVersion { // a manifest, not a format-1 file
		return hd, errVersion{hd.version}
	}
	h := hl - 8
	if got, want := crc32.Checksum(b[:h], castagnoli), le.Uint32(b[h:]); got != want {
		return hd, fmt.Errorf("header checksum mismatch (%08x, want %08x)", got, want)
	}
	if hd.version != LegacyVersion {
		return hd, errVersion{hd.version}
	}
	hd.elem = le.Uint32(b[12:])
	if hd.elem != ElemFloat32 {
		return hd, fmt.Errorf("unknown element type %d", hd.elem)
	}
	dim := le.Uint32(b[16:])
	if dim == 0 || dim > MaxDim {
		return hd, fmt.Errorf("dimension %d out of range 1..%d", dim, MaxDim)
	}
	count := le.Uint64(b[24:])
	if count > math.MaxInt32 {
		return hd, fmt.Errorf("vector count %d out of range", count)
	}
	hd.dim, hd.count = int(dim), int(count)
	hd.model = string(b[fixedHeader : fixedHeader+m])
	hd.bodyOff = hl
	if want := fileSize(m, hd.dim, hd.count); want != size {
		return hd, fmt.Errorf("file is %d bytes, header promises %d (torn or truncated write)", size, want)
	}
	return hd, nil
}

// encodeTrailer returns the 8 trailer bytes for a body checksum.
func encodeTrailer(sum uint32) []byte {
	b := make([]byte, trailerSize)
	binary.LittleEndian.PutUint32(b, sum)
	copy(b[4:], trailerMagic)
	return b
}

// checkTrailer verifies the trailer t against the body checksum sum.
func checkTrailer(t []byte, sum uint32) error {
	if string(t[4:]) != trailerMagic {
		return fmt.Errorf("missing trailer (torn write)")
	}
	if want := binary.LittleEndian.Uint32(t); want != sum {
		return fmt.Errorf("body checksum mismatch (%08x, want %08x)", sum, want)
	}
	return nil
}

type notVectorFile struct{}

func (notVectorFile) Error() string { return "not a dir2mcp vector index (bad magic)" }

var errNotVectorFile error = notVectorFile{}

type errVersion struct{ v uint32 }

func (e errVersion) Error() string {
	return fmt.Sprintf("format version %d, this build reads versions %d and %d", e.v, LegacyVersion, FormatVersion)
}
