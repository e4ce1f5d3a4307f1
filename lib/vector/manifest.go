package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// Manifest, format 2: the file FileName(kind) names the segments of the
// index, oldest first, in SegmentDir(kind). Writers replace it atomically
// after the segments it lists are durable, so a reader that reads one
// manifest sees one consistent set of segments.
//
//	offset  size  field
//	0       8     magic "D2MVEC\x1a\n" (as format 1)
//	8       4     uint32 format version (2)
//	12      4     uint32 element type (2 = int8 codes + float32 vectors, segmented)
//	16      4     uint32 dim
//	20      4     uint32 model id length M
//	24      8     uint64 next segment sequence number
//	32      M     model id, padded with zeros to a multiple of 8 (= H)
//	H       4     uint32 number of segments K
//	H+4     4     reserved, zero
//	H+8     24·K  per segment: uint64 seq, uint64 rows, uint64 file size
//	E-8     4     uint32 CRC-32C of [0, E-8)
//	E-4     4     "DEND"
//
// The first 12 bytes are laid out as in format 1, so a build that reads
// only format 1 reports a version mismatch rather than a corrupt file.
const (
	// FormatVersion is the format this package writes; it still reads
	// format 1 files (see LegacyVersion).
	FormatVersion = 2
	// LegacyVersion is the single-file format of earlier builds, read and
	// converted to segments by the next Writer.
	LegacyVersion = 1
	elemSegmented = 2
)

// manifest describes one consistent version of an index.
type manifest struct {
	model   string
	dim     int
	nextSeq uint64
	segs    []segEntry
}

// segEntry is one listed segment.
type segEntry struct {
	seq, rows uint64
	size      int64
}

// SegmentDir returns the state-dir directory holding the segments of the
// index kind, e.g. "vectors_text.segs".
func SegmentDir(kind string) string { return "vectors_" + kind + ".segs" }

// segDirOf returns the segment directory of the manifest at path.
func segDirOf(path string) string { return strings.TrimSuffix(path, ".flat") + ".segs" }

// segPath returns the file of segment seq of the manifest at path.
func segPath(path string, seq uint64) string {
	return filepath.Join(segDirOf(path), segName(seq))
}

// seqOfName parses a segment file name, or returns false.
func seqOfName(name string) (uint64, bool) {
	s, ok := strings.CutSuffix(name, ".vseg")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func (m *manifest) encode() []byte {
	le := binary.LittleEndian
	h := (fixedHeader + len(m.model) + 7) &^ 7
	b := make([]byte, h+8+24*len(m.segs)+trailerSize)
	copy(b, Magic)
	le.PutUint32(b[8:], FormatVersion)
	le.PutUint32(b[12:], elemSegmented)
	le.PutUint32(b[16:], uint32(m.dim))
	le.PutUint32(b[20:], uint32(len(m.model)))
	le.PutUint64(b[24:], m.nextSeq)
	copy(b[fixedHeader:], m.model)
	le.PutUint32(b[h:], uint32(len(m.segs)))
	for i, s := range m.segs {
		o := h + 8 + 24*i
		le.PutUint64(b[o:], s.seq)
		le.PutUint64(b[o+8:], s.rows)
		le.PutUint64(b[o+16:], uint64(s.size))
	}
	e := len(b) - trailerSize
	le.PutUint32(b[e:], crc32.Checksum(b[:e], castagnoli))
	copy(b[e+4:], trailerMagic)
	return b
}

// versionOf returns the format version of an index file image, or an
// error if it is not one.
func versionOf(b []byte) (uint32, error) {
	if len(b) < 12 || string(b[:8]) != Magic {
		return 0, errNotVectorFile
	}
	return binary.LittleEndian.Uint32(b[8:]), nil
}

func decodeManifest(b []byte) (*manifest, error) {
	le := binary.LittleEndian
	if len(b) < fixedHeader+8+trailerSize {
		return nil, errors.New("truncated manifest")
	}
	e := len(b) - trailerSize
	if string(b[e+4:]) != trailerMagic {
		return nil, errors.New("missing trailer (torn write)")
	}
	if got, want := crc32.Checksum(b[:e], castagnoli), le.Uint32(b[e:]); got != want {
		return nil, fmt.Errorf("manifest checksum mismatch (%08x, want %08x)", got, want)
	}
	if el := le.Uint32(b[12:]); el != elemSegmented {
		return nil, fmt.Errorf("unknown element type %d", el)
	}
	m := &manifest{dim: int(le.Uint32(b[16:])), nextSeq: le.Uint64(b[24:])}
	ml := int(le.Uint32(b[20:]))
	if m.dim <= 0 || m.dim > MaxDim || ml > MaxModelLen {
		return nil, fmt.Errorf("dimension %d or model length %d out of range", m.dim, ml)
	}
	h := (fixedHeader + ml + 7) &^ 7
	if h+8 > e {
		return nil, errors.New("truncated manifest")
	}
	m.model = string(b[fixedHeader : fixedHeader+ml])
	k := int(le.Uint32(b[h:]))
	if h+8+24*k != e {
		return nil, fmt.Errorf("manifest lists %d segments but is %d bytes", k, len(b))
	}
	for i := range k {
		o := h + 8 + 24*i
		m.segs = append(m.segs, segEntry{seq: le.Uint64(b[o:]), rows: le.Uint64(b[o+8:]), size: int64(le.Uint64(b[o+16:]))})
	}
	return m, nil
}

// writeManifest replaces the manifest at path atomically.
func writeManifest(path string, m *manifest) error {
	return atomicfile.Write(path, m.encode(), 0o600)
}

// readIndexFile reads the small file at path: a format-2 manifest, or
// (legacy) a whole format-1 index, which it returns decoded instead.
func readIndexFile(path string) (*manifest, *Index, mmapfile.FileID, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, mmapfile.FileID{}, openError(path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, mmapfile.FileID{}, openError(path, err)
	}
	id := mmapfile.IDOf(st)
	var head [12]byte
	_, herr := f.ReadAt(head[:], 0)
	v, err := versionOf(head[:])
	if herr != nil || err != nil {
		f.Close()
		return nil, nil, id, corrupt(path, errNotVectorFile)
	}
	if v == LegacyVersion {
		f.Close()
		ix, id, err := loadFile(path)
		return nil, ix, id, err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, nil, id, openError(path, err)
	}
	if v != FormatVersion {
		return nil, nil, id, versionError(path, errVersion{v})
	}
	m, err := decodeManifest(b)
	if err != nil {
		return nil, nil, id, corrupt(path, err)
	}
	return m, nil, id, nil
}

// segName is the file name of segment seq.
func segName(seq uint64) string { return fmt.Sprintf("%020d.vseg", seq) }
