package postings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"strings"
	"unsafe"

	"github.com/dir2mcp/dir2mcp/lib/mmapfile"
)

// segment is an open segment file: its sections as slices of the file's
// read-only mapping. Every access is bounds-checked, so a damaged file
// can give wrong answers (verify detects it) but never crash a reader.
type segment struct {
	seq    uint64
	path   string
	counts segCounts
	data   []byte
	free   func()

	ids    []int64
	byID   []uint32
	lens   []uint32
	kinds  []uint8
	names  []string
	tombs  []int64
	posts  []uint32 // the region in 4-byte words
	termN  []uint32
	offs   []uint32
	ends   []uint32
	terms  []byte
	exc    []uint32
	hdrCRC [2]uint32 // meta, postings
}

// size returns the segment file's size in bytes.
func (g *segment) size() int64 { return int64(len(g.data)) }

// errCorrupt marks a segment that fails its structural or checksum checks.
var errCorrupt = errors.New("segment corrupt")

// openSegment maps the segment at path and checks its header and layout
// (not its checksums: see verify).
func openSegment(path string, seq uint64) (*segment, error) {
	data, free, err := mmapfile.Map(path)
	if err != nil {
		return nil, err
	}
	g, err := parseSegment(data)
	if err != nil {
		free()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	g.seq, g.path, g.free = seq, path, free
	return g, nil
}

func parseSegment(data []byte) (*segment, error) {
	if len(data) < segHeader || string(data[:8]) != segMagic {
		return nil, fmt.Errorf("%w: not a postings segment", errCorrupt)
	}
	le := binary.LittleEndian
	if crc32.Checksum(data[:124], castagnoli) != le.Uint32(data[124:]) {
		return nil, fmt.Errorf("%w: header checksum", errCorrupt)
	}
	if v := le.Uint32(data[8:]); v != segVersion {
		return nil, fmt.Errorf("%w: format version %d (this build reads %d)", errCorrupt, v, segVersion)
	}
	var c segCounts
	c.n, c.m, c.t, c.k, c.e = le.Uint32(data[12:]), le.Uint32(data[16:]), le.Uint32(data[20:]), le.Uint32(data[24:]), le.Uint32(data[28:])
	c.p, c.b, c.tokens, c.r = le.Uint64(data[32:]), le.Uint64(data[40:]), le.Uint64(data[48:]), le.Uint64(data[56:])
	if c.r%8 != 0 || c.r > uint64(len(data)) || c.b > uint64(len(data)) {
		return nil, fmt.Errorf("%w: sizes", errCorrupt)
	}
	l := layoutOf(c)
	if l.end != int64(len(data)) {
		return nil, fmt.Errorf("%w: %d bytes, layout says %d", errCorrupt, len(data), l.end)
	}
	g := &segment{counts: c, data: data}
	g.hdrCRC = [2]uint32{le.Uint32(data[64:]), le.Uint32(data[68:])}
	g.ids = i64At(data, l.ids, int(c.n))
	g.byID = u32At(data, l.byID, int(c.n))
	g.lens = u32At(data, l.lens, int(c.n))
	g.kinds = data[l.kinds : l.kinds+int64(c.n)]
	names := string(data[l.names : l.names+int64(c.k)])
	if c.k > 0 {
		if !strings.HasSuffix(names, "\n") {
			return nil, fmt.Errorf("%w: kind names", errCorrupt)
		}
		g.names = strings.Split(strings.TrimSuffix(names, "\n"), "\n")
	}
	g.tombs = i64At(data, l.tombs, int(c.t))
	g.posts = u32At(data, l.posts, int(c.r/4))
	g.termN = u32At(data, l.termN, int(c.m))
	g.offs = u32At(data, l.offs, int(c.m)+1)
	g.ends = u32At(data, l.ends, int(c.m))
	g.terms = data[l.terms : l.terms+int64(c.b)]
	g.exc = u32At(data, l.exc, 5*int(c.e))
	if err := g.checkTables(); err != nil {
		return nil, err
	}
	return g, nil
}

// checkTables checks the row tables other sections index (row order,
// kinds), in time linear in rows, so that row lookups stay in bounds.
// Term and block offsets are checked where they are used (term, block)
// and in full by verify: opening a segment reads no page of its
// dictionary, which for a large index is tens of megabytes.
func (g *segment) checkTables() error {
	n := g.counts.n
	for _, r := range g.byID {
		if r >= n {
			return fmt.Errorf("%w: row order", errCorrupt)
		}
	}
	for _, k := range g.kinds {
		if int(k) >= len(g.names) {
			return fmt.Errorf("%w: row kind", errCorrupt)
		}
	}
	return nil
}

// checkDictionary checks every term's bytes and block offsets.
func (g *segment) checkDictionary() error {
	prevEnd, prevOff := uint32(0), uint32(0)
	for t := range g.termN {
		if g.ends[t] < prevEnd || int(g.ends[t]) > len(g.terms) {
			return fmt.Errorf("%w: term bytes", errCorrupt)
		}
		prevEnd = g.ends[t]
		off := g.offs[t]
		if off < prevOff || uint64(off)+blockWords(int(g.termN[t])) > uint64(g.offs[t+1]) {
			return fmt.Errorf("%w: term blocks", errCorrupt)
		}
		prevOff = off
	}
	if len(g.offs) > 0 && uint64(g.offs[len(g.offs)-1]) > uint64(len(g.posts)) {
		return fmt.Errorf("%w: term blocks", errCorrupt)
	}
	return nil
}

func u32At(data []byte, off int64, n int) []uint32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&data[off])), n)
}

func i64At(data []byte, off int64, n int) []int64 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&data[off])), n)
}

// track unmaps the segment once it is unreachable (no snapshot holds it;
// searches keep their snapshot alive while they read).
func (g *segment) track() {
	free := g.free
	g.free = nil
	runtime.AddCleanup(g, func(f func()) { f() }, free)
}

// release unmaps an untracked segment; it must not be used afterwards.
func (g *segment) release() {
	if g.free != nil {
		g.free()
		g.free = nil
	}
}

// verify checks the segment's checksums and that its dictionary and
// postings are well formed (every offset in bounds, rows ascending and
// below the row count, terms strictly ascending).
func (g *segment) verify() error {
	// Every page is read once: dropped from the resident set as the
	// checksums go (they stay in the page cache).
	defer mmapfile.Evict(g.data)
	l := layoutOf(g.counts)
	meta := crcEvicting(0, g.data[segHeader:l.posts])
	meta = crcEvicting(meta, g.data[l.termN:l.end])
	if meta != g.hdrCRC[0] {
		return fmt.Errorf("%w: checksum of rows and dictionary", errCorrupt)
	}
	if crcEvicting(0, g.data[l.posts:l.termN]) != g.hdrCRC[1] {
		return fmt.Errorf("%w: checksum of postings", errCorrupt)
	}
	if err := g.checkDictionary(); err != nil {
		return err
	}
	var prev []byte
	var total uint64
	for t := range g.termN {
		term, ok := g.term(t)
		if !ok || (t > 0 && bytes.Compare(prev, term) >= 0) {
			return fmt.Errorf("%w: term %d", errCorrupt, t)
		}
		prev = term
		rows, _, ok := g.block(t)
		if !ok {
			return fmt.Errorf("%w: postings of term %d", errCorrupt, t)
		}
		for i, r := range rows {
			if r >= g.counts.n || (i > 0 && r <= rows[i-1]) {
				return fmt.Errorf("%w: postings of term %d", errCorrupt, t)
			}
		}
		total += uint64(len(rows))
	}
	if total != g.counts.p {
		return fmt.Errorf("%w: %d postings, header says %d", errCorrupt, total, g.counts.p)
	}
	for i := 1; i < len(g.byID); i++ {
		if g.ids[g.byID[i]] <= g.ids[g.byID[i-1]] {
			return fmt.Errorf("%w: row order", errCorrupt)
		}
	}
	return nil
}

// crcEvicting is crc32.Update over b in chunks, dropping each chunk's
// whole pages from the resident set once summed.
func crcEvicting(crc uint32, b []byte) uint32 {
	const chunk = 8 << 20
	for len(b) > 0 {
		n := min(len(b), chunk)
		crc = crc32.Update(crc, castagnoli, b[:n])
		if n == chunk {
			mmapfile.Evict(pageAligned(b[:n]))
		}
		b = b[n:]
	}
	return crc
}

// pageAligned returns the whole pages inside b.
func pageAligned(b []byte) []byte {
	const page = 4096
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi <= lo {
		return nil
	}
	return b[lo-start : hi-start]
}

// term returns term t's bytes.
func (g *segment) term(t int) ([]byte, bool) {
	start := uint32(0)
	if t > 0 {
		start = g.ends[t-1]
	}
	end := g.ends[t]
	if start > end || int(end) > len(g.terms) {
		return nil, false
	}
	return g.terms[start:end], true
}

// find returns the index of term in the dictionary, or -1.
func (g *segment) find(term []byte) int {
	lo, hi := 0, len(g.termN)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		t, ok := g.term(mid)
		if !ok {
			return -1
		}
		if bytes.Compare(t, term) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(g.termN) {
		if t, ok := g.term(lo); ok && bytes.Equal(t, term) {
			return lo
		}
	}
	return -1
}

// block returns term t's rows and packed frequencies.
func (g *segment) block(t int) (rows []uint32, packed []uint16, ok bool) {
	n := uint64(g.termN[t])
	off := uint64(g.offs[t])
	if off+blockWords(int(n)) > uint64(len(g.posts)) || uint64(g.offs[t+1]) < off+blockWords(int(n)) {
		return nil, nil, false
	}
	rows = g.posts[off : off+n]
	if n > 0 {
		packed = unsafe.Slice((*uint16)(unsafe.Pointer(&g.posts[off+n])), n)
	}
	return rows, packed, true
}

// freqsAt returns the frequencies of posting i of term t, packed code c.
func (g *segment) freqsAt(t, i int, c uint16) freqs {
	if c != escaped {
		return unpackFreqs(c)
	}
	lo, hi := 0, len(g.exc)/5
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		e := g.exc[5*mid:]
		if e[0] < uint32(t) || e[0] == uint32(t) && e[1] < uint32(i) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(g.exc)/5 {
		if e := g.exc[5*lo:]; e[0] == uint32(t) && e[1] == uint32(i) {
			return freqs{ColPath: e[2], ColTitle: e[3], ColBody: e[4]}
		}
	}
	return freqs{}
}

// rowOf returns the row holding id, or -1.
func (g *segment) rowOf(id int64) int {
	lo, hi := 0, len(g.byID)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if g.ids[g.byID[mid]] < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(g.byID) && g.ids[g.byID[lo]] == id {
		return int(g.byID[lo])
	}
	return -1
}
