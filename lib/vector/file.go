package vector

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
	"github.com/viterin/vek/vek32"
)

// FileName returns the state-dir file name of the index for an index kind
// ("text" or "code"), e.g. "vectors_text.flat".
func FileName(kind string) string {
	return "vectors_" + kind + ".flat"
}

// Load reads a format-1 index file at path into memory with one read and
// verifies both checksums (Open reads either format). On a little-endian host the vectors are used in place,
// without per-element decoding.
//
// A missing file is a FILE_NOT_FOUND error (errors.Is(err, fs.ErrNotExist)
// holds). A torn, truncated or corrupt file is STORE_CORRUPT and a file of
// another format version is INDEX_VERSION_MISMATCH; both name the file.
func Load(path string) (*Index, error) {
	ix, _, err := loadFile(path)
	return ix, err
}

// loadFile is Load that also returns the identity of the file it read.
func loadFile(path string) (*Index, mmapfile.FileID, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, mmapfile.FileID{}, openError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, mmapfile.FileID{}, errcode.Wrap(errcode.Internal, err, "vector index %s: %v", path, err)
	}
	id := mmapfile.IDOf(st)
	size := st.Size()
	if size > math.MaxInt-8 {
		return nil, id, corrupt(path, errors.New("file too large"))
	}
	// Read into []uint64 so the body (at an 8-byte offset) is aligned for
	// int64 and float32 views.
	words := make([]uint64, (size+7)/8)
	var buf []byte
	if len(words) > 0 {
		buf = unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)
	}
	if _, err := io.ReadFull(f, buf); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, id, corrupt(path, errors.New("file shrank while reading"))
		}
		return nil, id, errcode.Wrap(errcode.Internal, err, "vector index %s: read: %v", path, err)
	}
	ix, err := decode(buf)
	if err != nil {
		var ve errVersion
		if errors.As(err, &ve) {
			return nil, id, versionError(path, err)
		}
		return nil, id, corrupt(path, err)
	}
	return ix, id, nil
}

// decode builds an index over a whole file image. On little-endian hosts
// the index aliases buf, which must be 8-byte aligned.
func decode(buf []byte) (*Index, error) {
	hd, err := decodeHeader(buf, int64(len(buf)))
	if err != nil {
		return nil, err
	}
	n, d := hd.count, hd.dim
	lo := hd.bodyOff
	vo := lo + 8*n
	end := len(buf) - trailerSize
	if err := checkTrailer(buf[end:], crc32.Checksum(buf[lo:end], castagnoli)); err != nil {
		return nil, err
	}
	ix := &Index{model: hd.model, dim: d, slots: make(map[int64]int, n)}
	if n > 0 {
		if littleEndian {
			ix.labels = unsafe.Slice((*int64)(unsafe.Pointer(&buf[lo])), n)
			ix.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&buf[vo])), n*d)
		} else {
			ix.labels = make([]int64, n)
			for i := range ix.labels {
				ix.labels[i] = int64(binary.LittleEndian.Uint64(buf[lo+8*i:]))
			}
			ix.vecs = make([]float32, n*d)
			for i := range ix.vecs {
				ix.vecs[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[vo+4*i:]))
			}
		}
	}
	for i, l := range ix.labels {
		if _, dup := ix.slots[l]; dup {
			return nil, errors.New("duplicate label " + strconv.FormatInt(l, 10))
		}
		ix.slots[l] = i
	}
	if i := nonFinite(ix.vecs); i >= 0 {
		return nil, errors.New("non-finite value in vector of label " + strconv.FormatInt(ix.labels[i/d], 10))
	}
	return ix, nil
}

// nonFinite returns the index of the first NaN or ±Inf in v, or -1. The
// SIMD sum of squares is finite exactly when every element is finite and
// not huge, so the element-wise scan runs only on suspicious data.
func nonFinite(v []float32) int {
	if len(v) == 0 {
		return -1
	}
	if s := vek32.Dot(v, v); s-s == 0 {
		return -1
	}
	for i, x := range v {
		if x-x != 0 {
			return i
		}
	}
	return -1
}

// WriteFile writes the index to path atomically: it writes a temporary file
// in the same directory, fsyncs it, renames it over path and fsyncs the
// directory, so readers see either the old file or the complete new one.
// The file is created with mode 0600. Searches may run while it writes;
// mutations wait until the data is written but not for the fsync.
func (ix *Index) WriteFile(path string) error {
	ix.mu.RLock()
	locked := true
	unlock := func() {
		if locked {
			locked = false
			ix.mu.RUnlock()
		}
	}
	defer unlock()
	err := atomicfile.WriteFunc(path, 0o600, func(w io.Writer) error {
		defer unlock()
		if _, err := w.Write(encodeHeader(ix.model, ix.dim, len(ix.labels))); err != nil {
			return err
		}
		sum, err := ix.writeBody(w)
		if err != nil {
			return err
		}
		_, err = w.Write(encodeTrailer(sum))
		return err
	})
	if err != nil {
		return errcode.Wrap(errcode.Internal, err, "write vector index %s: %v", path, err)
	}
	return nil
}

// writeBody writes labels then vectors and returns their CRC-32C.
func (ix *Index) writeBody(w io.Writer) (uint32, error) {
	var sum uint32
	put := func(b []byte) error {
		sum = crc32.Update(sum, castagnoli, b)
		_, err := w.Write(b)
		return err
	}
	if littleEndian {
		if len(ix.labels) == 0 {
			return sum, nil
		}
		if err := put(unsafe.Slice((*byte)(unsafe.Pointer(&ix.labels[0])), 8*len(ix.labels))); err != nil {
			return 0, err
		}
		return sum, put(unsafe.Slice((*byte)(unsafe.Pointer(&ix.vecs[0])), 4*len(ix.vecs)))
	}
	const chunk = 1 << 16
	b := make([]byte, 0, chunk)
	for _, l := range ix.labels {
		b = binary.LittleEndian.AppendUint64(b, uint64(l))
		if len(b) >= chunk-8 {
			if err := put(b); err != nil {
				return 0, err
			}
			b = b[:0]
		}
	}
	for _, x := range ix.vecs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		if len(b) >= chunk-8 {
			if err := put(b); err != nil {
				return 0, err
			}
			b = b[:0]
		}
	}
	return sum, put(b)
}

func openError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errcode.Wrap(errcode.FileNotFound, err, "vector index %s does not exist", path)
	}
	return errcode.Wrap(errcode.Internal, err, "vector index %s: %v", path, err)
}

func corrupt(path string, err error) error {
	return errcode.Wrap(errcode.StoreCorrupt, err, "vector index %s is corrupt: %v; delete it to rebuild", path, err)
}

// versionError is INDEX_VERSION_MISMATCH for the index file at path.
func versionError(path string, err error) error {
	return errcode.Wrap(errcode.IndexVersionMismatch, err, "vector index %s: %v; run `dir2mcp reindex --force` (moves the old index aside and builds a new one)", path, err)
}
