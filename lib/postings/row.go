package postings

import (
	"bytes"
	"hash/maphash"
)

// Columns of a row, in the order of the FTS5 table the index replaces
// (chunks_fts: path, title, body).
const (
	ColPath = iota
	ColTitle
	ColBody
	numCols
)

// ColumnSet is a set of columns (bit c set: column c); AllColumns is every
// column.
type ColumnSet uint8

// AllColumns is the set of every column.
const AllColumns ColumnSet = 1<<numCols - 1

// Has reports whether s holds column c.
func (s ColumnSet) Has(c int) bool { return s&(1<<c) != 0 }

// Doc is one row to index: a chunk's full-text columns as the store writes
// them (lexical.IndexText of its path, its title with the heading trail,
// and its text).
type Doc struct {
	ID   int64
	Kind string // index kind ("text", "code")
	Cols [numCols]string
}

// freqs is a term's occurrences in one row, per column.
type freqs [numCols]uint32

// tokRow is a Doc tokenized: each distinct term once, with its
// occurrences per column, and the row's length in tokens (FTS5's
// docsize: every token of every column).
type tokRow struct {
	id    int64
	kind  string
	len   uint32
	terms []byte   // distinct terms back to back
	ends  []uint32 // ends[i]: end of term i in terms
	freqs []freqs
}

// term returns distinct term i.
func (r *tokRow) term(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.terms[start:r.ends[i]]
}

// rowTokenizer turns Docs into tokRows; it reuses its buffers and is not
// safe for concurrent use.
type rowTokenizer struct {
	t     *tokenizer
	table termTable
}

func newRowTokenizer() (*rowTokenizer, error) {
	t, err := getTokenizer()
	if err != nil {
		return nil, err
	}
	return &rowTokenizer{t: t}, nil
}

// close returns the tokenizer instance to the pool.
func (rt *rowTokenizer) close() { putTokenizer(rt.t) }

// tokenize fills r (its slices reused) with d's distinct terms.
func (rt *rowTokenizer) tokenize(d *Doc, r *tokRow) error {
	r.id, r.kind, r.len = d.ID, d.Kind, 0
	r.terms, r.ends, r.freqs = r.terms[:0], r.ends[:0], r.freqs[:0]
	rt.table.reset()
	for c := range numCols {
		err := rt.t.each(d.Cols[c], func(tok []byte) {
			r.len++
			i := rt.table.find(r, tok)
			r.freqs[i][c]++
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// termTable is an open-addressing hash set of one row's terms, indexing
// into the row's own term buffer (no allocation per term).
type termTable struct {
	seed  maphash.Seed
	slots []int32 // term index + 1; 0 = empty
	used  int
}

func (h *termTable) reset() {
	if h.slots == nil {
		h.seed = maphash.MakeSeed()
		h.slots = make([]int32, 1024)
	}
	if h.used > 0 {
		clear(h.slots)
		h.used = 0
	}
}

// find returns the index of tok among r's terms, adding it if new.
func (h *termTable) find(r *tokRow, tok []byte) int {
	if 2*(h.used+1) > len(h.slots) {
		h.grow(r)
	}
	mask := uint64(len(h.slots) - 1)
	for i := maphash.Bytes(h.seed, tok) & mask; ; i = (i + 1) & mask {
		s := h.slots[i]
		if s == 0 {
			r.terms = append(r.terms, tok...)
			r.ends = append(r.ends, uint32(len(r.terms)))
			r.freqs = append(r.freqs, freqs{})
			h.slots[i] = int32(len(r.ends))
			h.used++
			return len(r.ends) - 1
		}
		if bytes.Equal(r.term(int(s-1)), tok) {
			return int(s - 1)
		}
	}
}

func (h *termTable) grow(r *tokRow) {
	h.slots = make([]int32, 2*len(h.slots))
	mask := uint64(len(h.slots) - 1)
	for t := range r.ends {
		i := maphash.Bytes(h.seed, r.term(t)) & mask
		for h.slots[i] != 0 {
			i = (i + 1) & mask
		}
		h.slots[i] = int32(t + 1)
	}
}
