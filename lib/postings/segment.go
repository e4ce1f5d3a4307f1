package postings

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unsafe"
)

// Segment file, format 1. A segment is immutable once a manifest lists it.
// Integers are little-endian; sections start at 8-byte boundaries in this
// order (sizes from the header):
//
//	offset  size  field
//	0       8     magic "D2MPOST\n"
//	8       4     uint32 format version (1)
//	12      4     uint32 rows N
//	16      4     uint32 terms M
//	20      4     uint32 tombstones T
//	24      4     uint32 kinds bytes K
//	28      4     uint32 exceptions E
//	32      8     uint64 postings P
//	40      8     uint64 term bytes B
//	48      8     uint64 tokens: the rows' lengths summed
//	56      8     uint64 postings region bytes R
//	64      4     uint32 CRC-32C of every section but the postings region
//	68      4     uint32 CRC-32C of the postings region
//	72      52    reserved, zero
//	124     4     uint32 CRC-32C of bytes [0, 124)
//	ids     8·N   int64 chunk id of each row (rows in the order written)
//	byID    4·N   uint32 rows in ascending id order
//	lens    4·N   uint32 length of each row in tokens (all columns)
//	kinds   N     uint8 index kind of each row (an index into the names)
//	names   K     index kind names, each followed by '\n'
//	tombs   8·T   int64 ascending: ids removed from older segments
//	posts   R     per term, a block: its n rows (uint32 ascending) then n
//	              packed frequencies (uint16, see packFreqs), padded to 4
//	termN   4·M   uint32 postings of each term
//	offs    4·M+4 uint32 each term's block start in the region, in 4-byte
//	              words, then the region's end
//	ends    4·M   uint32 end of each term in the term bytes
//	terms   B     the terms in ascending byte order, back to back
//	exc     20·E  uint32 (term, posting, path, title, body): frequencies
//	              too large to pack, ascending by (term, posting)
//
// An id in a segment's rows or tombstones shadows that id in every older
// segment.
const (
	segMagic   = "D2MPOST\n"
	segVersion = 1
	segHeader  = 128
)

// Packed frequencies: body in bits 0-9, path in 10-12, title in 13-15; a
// count at its field's maximum (or all bits set) means the exact counts
// are in the exceptions.
const (
	bodyBits, pathBits, titleBits = 10, 3, 3
	bodyMax                       = 1<<bodyBits - 1
	pathMax                       = 1<<pathBits - 1
	titleMax                      = 1<<titleBits - 1
	escaped                       = 0xFFFF
)

// packFreqs packs f, or returns escaped when a count does not fit.
func packFreqs(f freqs) uint16 {
	if f[ColBody] >= bodyMax || f[ColPath] >= pathMax || f[ColTitle] >= titleMax {
		return escaped
	}
	return uint16(f[ColBody] | f[ColPath]<<bodyBits | f[ColTitle]<<(bodyBits+pathBits))
}

// unpackFreqs reverses packFreqs for a code that is not escaped.
func unpackFreqs(c uint16) freqs {
	return freqs{ColPath: uint32(c>>bodyBits) & pathMax, ColTitle: uint32(c>>(bodyBits+pathBits)) & titleMax, ColBody: uint32(c) & bodyMax}
}

// segCounts are the sizes a segment's header records.
type segCounts struct {
	n, m, t, k, e uint32
	p, b, tokens  uint64
	r             uint64
}

// segLayout is the offset of every section.
type segLayout struct {
	ids, byID, lens, kinds, names, tombs, posts, termN, offs, ends, terms, exc, end int64
}

func align8(x int64) int64 { return (x + 7) &^ 7 }

func layoutOf(c segCounts) segLayout {
	var l segLayout
	l.ids = segHeader
	l.byID = align8(l.ids + 8*int64(c.n))
	l.lens = align8(l.byID + 4*int64(c.n))
	l.kinds = align8(l.lens + 4*int64(c.n))
	l.names = align8(l.kinds + int64(c.n))
	l.tombs = align8(l.names + int64(c.k))
	l.posts = align8(l.tombs + 8*int64(c.t))
	l.termN = align8(l.posts + int64(c.r))
	l.offs = align8(l.termN + 4*int64(c.m))
	l.ends = align8(l.offs + 4*int64(c.m+1))
	l.terms = align8(l.ends + 4*int64(c.m))
	l.exc = align8(l.terms + int64(c.b))
	l.end = l.exc + 20*int64(c.e)
	return l
}

// blockWords is the size in 4-byte words of a term block of n postings.
func blockWords(n int) uint64 { return uint64(n) + (uint64(n)+1)/2 }

// segSource is what writeSegment writes: rows in their order, tombstones
// ascending, and terms in ascending byte order with their postings (rows
// ascending, numbered as rowData lists them).
type segSource interface {
	rowData() (ids []int64, lens []uint32, kinds []uint8, kindNames []string)
	tombstones() []int64
	eachTerm(fn func(term []byte, rows []uint32, f []freqs) error) error
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// sectionWriter writes sections in file order, padding each to 8 bytes,
// and checksums what it writes.
type sectionWriter struct {
	w   *bufio.Writer
	off int64
	crc uint32
	sum bool // add written bytes to crc
}

func (s *sectionWriter) write(b []byte) error {
	if s.sum {
		s.crc = crc32.Update(s.crc, castagnoli, b)
	}
	_, err := s.w.Write(b)
	s.off += int64(len(b))
	return err
}

var zeros [8]byte

// pad writes zeros up to offset at (an 8-byte boundary).
func (s *sectionWriter) padTo(at int64) error {
	if at < s.off || at-s.off > 8 {
		return fmt.Errorf("postings: segment layout mismatch at %d (writing at %d)", at, s.off)
	}
	return s.write(zeros[:at-s.off])
}

func (s *sectionWriter) u32s(v []uint32) error {
	return s.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v)))
}

func (s *sectionWriter) i64s(v []int64) error {
	return s.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 8*len(v)))
}

func (s *sectionWriter) u16s(v []uint16) error {
	return s.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 2*len(v)))
}

// writeSegment writes src to path (a new file, synced). It reads src's
// terms once: postings go straight to their region, the dictionary to
// temporary files beside path, appended after the region, so memory holds
// neither.
func writeSegment(path string, src segSource) error {
	ids, lens, kinds, names := src.rowData()
	tombs := src.tombstones()
	var c segCounts
	c.n, c.t = uint32(len(ids)), uint32(len(tombs))
	for _, n := range names {
		c.k += uint32(len(n) + 1)
	}
	for _, l := range lens {
		c.tokens += uint64(l)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(path)
		}
	}()
	// The dictionary's sections, spooled until the region's size is known.
	var spool [4]*spoolFile
	defer func() {
		for _, sp := range spool {
			sp.close()
		}
	}()
	for i := range spool {
		if spool[i], err = newSpool(filepath.Dir(path)); err != nil {
			return err
		}
	}
	termNs, offs, ends, blob := spool[0], spool[1], spool[2], spool[3]

	l := layoutOf(c) // the row sections' offsets do not depend on the rest
	if _, err := f.Seek(segHeader, 0); err != nil {
		return err
	}
	sw := &sectionWriter{w: bufio.NewWriterSize(f, 1<<20), off: segHeader, sum: true}
	byID := make([]uint32, len(ids))
	for i := range byID {
		byID[i] = uint32(i)
	}
	sortRowsByID(byID, ids)
	kindBytes := make([]byte, 0, c.k)
	for _, n := range names {
		kindBytes = append(append(kindBytes, n...), '\n')
	}
	steps := []func() error{
		func() error { return sw.i64s(ids) },
		func() error { return sw.padTo(l.byID) },
		func() error { return sw.u32s(byID) },
		func() error { return sw.padTo(l.lens) },
		func() error { return sw.u32s(lens) },
		func() error { return sw.padTo(l.kinds) },
		func() error { return sw.write(kinds) },
		func() error { return sw.padTo(l.names) },
		func() error { return sw.write(kindBytes) },
		func() error { return sw.padTo(l.tombs) },
		func() error { return sw.i64s(tombs) },
		func() error { return sw.padTo(l.posts) },
	}
	if err := run(steps); err != nil {
		return err
	}
	// The postings region, term by term.
	metaCRC := sw.crc
	sw.crc = 0
	var exc []uint32
	var packed []uint16
	var word [4]byte
	put32 := func(sp *spoolFile, v uint32) error {
		binary.LittleEndian.PutUint32(word[:], v)
		return sp.write(word[:])
	}
	err = src.eachTerm(func(term []byte, rows []uint32, fr []freqs) error {
		t := uint32(c.m)
		if err := put32(termNs, uint32(len(rows))); err != nil {
			return err
		}
		if err := put32(offs, uint32(c.r/4)); err != nil {
			return err
		}
		if err := blob.write(term); err != nil {
			return err
		}
		c.m++
		c.b += uint64(len(term))
		if err := put32(ends, uint32(c.b)); err != nil {
			return err
		}
		packed = packed[:0]
		for i, x := range fr {
			code := packFreqs(x)
			if code == escaped {
				exc = append(exc, t, uint32(i), x[ColPath], x[ColTitle], x[ColBody])
			}
			packed = append(packed, code)
		}
		if len(packed)%2 == 1 {
			packed = append(packed, 0)
		}
		c.p += uint64(len(rows))
		c.r += 4 * blockWords(len(rows))
		if c.r/4 > 1<<32-1 || c.b > 1<<32-1 {
			return errors.New("postings: segment too large")
		}
		if err := sw.u32s(rows); err != nil {
			return err
		}
		return sw.u16s(packed)
	})
	if err != nil {
		return err
	}
	c.r = uint64(align8(int64(c.r)))
	c.e = uint32(len(exc) / 5)
	l = layoutOf(c)
	if err := sw.padTo(l.termN); err != nil {
		return err
	}
	postCRC := sw.crc
	sw.crc = metaCRC
	if err := put32(offs, uint32(c.r/4)); err != nil {
		return err
	}
	steps = []func() error{
		func() error { return termNs.copyTo(sw) },
		func() error { return sw.padTo(l.offs) },
		func() error { return offs.copyTo(sw) },
		func() error { return sw.padTo(l.ends) },
		func() error { return ends.copyTo(sw) },
		func() error { return sw.padTo(l.terms) },
		func() error { return blob.copyTo(sw) },
		func() error { return sw.padTo(l.exc) },
		func() error { return sw.u32s(exc) },
	}
	if err := run(steps); err != nil {
		return err
	}
	if sw.off != l.end {
		return fmt.Errorf("postings: segment layout mismatch: wrote %d of %d bytes", sw.off, l.end)
	}
	if err := sw.w.Flush(); err != nil {
		return err
	}
	if _, err := f.WriteAt(encodeHeader(c, sw.crc, postCRC), 0); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	ok = true
	return nil
}

// run runs steps in order until one fails.
func run(steps []func() error) error {
	for _, st := range steps {
		if err := st(); err != nil {
			return err
		}
	}
	return nil
}

// spoolFile is an unlinked temporary file written then read back once.
type spoolFile struct {
	f *os.File
	w *bufio.Writer
}

func newSpool(dir string) (*spoolFile, error) {
	f, err := os.CreateTemp(dir, ".spool-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // gone with the last descriptor, even after a crash
	return &spoolFile{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (s *spoolFile) write(b []byte) error {
	_, err := s.w.Write(b)
	return err
}

// copyTo writes the spooled bytes to sw.
func (s *spoolFile) copyTo(sw *sectionWriter) error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, 0); err != nil {
		return err
	}
	buf := make([]byte, 256<<10)
	for {
		n, err := s.f.Read(buf)
		if n > 0 {
			if werr := sw.write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *spoolFile) close() {
	if s != nil {
		s.f.Close()
	}
}

func encodeHeader(c segCounts, metaCRC, postCRC uint32) []byte {
	h := make([]byte, segHeader)
	copy(h, segMagic)
	le := binary.LittleEndian
	le.PutUint32(h[8:], segVersion)
	le.PutUint32(h[12:], c.n)
	le.PutUint32(h[16:], c.m)
	le.PutUint32(h[20:], c.t)
	le.PutUint32(h[24:], c.k)
	le.PutUint32(h[28:], c.e)
	le.PutUint64(h[32:], c.p)
	le.PutUint64(h[40:], c.b)
	le.PutUint64(h[48:], c.tokens)
	le.PutUint64(h[56:], c.r)
	le.PutUint32(h[64:], metaCRC)
	le.PutUint32(h[68:], postCRC)
	le.PutUint32(h[124:], crc32.Checksum(h[:124], castagnoli))
	return h
}

// sortRowsByID sorts row numbers by their ids (ascending, ids unique).
func sortRowsByID(rows []uint32, ids []int64) {
	sorted := true
	for i := 1; i < len(ids); i++ {
		if ids[i] < ids[i-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	slices.SortFunc(rows, func(a, b uint32) int { return cmp.Compare(ids[a], ids[b]) })
}
