package postings

import (
	"slices"
	"sort"
)

// builder collects rows in memory until they are written as one segment.
// Rows are numbered in the order they arrive; a row added again (the same
// chunk id) or deleted replaces or removes the earlier one, which is left
// out when the segment is written. Every id added or deleted is also a
// tombstone for older segments. A builder is not safe for concurrent use.
type builder struct {
	ids    []int64
	lens   []uint32
	kinds  []uint8
	gone   []bool          // rows replaced or deleted within the batch
	rowOf  map[int64]int32 // id → its latest row (one per row not gone)
	tombs  map[int64]struct{}
	kindIx map[string]uint8
	kindNm []string

	termIx map[string]int32
	names  []string
	posts  []termPosts
	nPost  int
	// exc holds the frequencies too large to pack, by (term, posting).
	exc map[[2]int32]freqs
}

// termPosts is one term's postings in a builder, rows ascending, with
// their packed frequencies (packFreqs; escaped ones in exc).
type termPosts struct {
	rows  []uint32
	codes []uint16
}

func newBuilder() *builder {
	return &builder{rowOf: map[int64]int32{}, tombs: map[int64]struct{}{}, kindIx: map[string]uint8{}, termIx: map[string]int32{}}
}

// empty reports whether the builder holds nothing to write.
func (b *builder) empty() bool { return len(b.ids) == 0 && len(b.tombs) == 0 }

// memBytes estimates the heap the builder holds.
func (b *builder) memBytes() int64 {
	return int64(b.nPost)*9 + int64(len(b.names))*80 + int64(len(b.ids))*40
}

// add appends a tokenized row.
func (b *builder) add(r *tokRow) {
	b.remove(r.id)
	row := uint32(len(b.ids))
	k, ok := b.kindIx[r.kind]
	if !ok {
		k = uint8(len(b.kindNm))
		b.kindIx[r.kind] = k
		b.kindNm = append(b.kindNm, r.kind)
	}
	b.ids = append(b.ids, r.id)
	b.lens = append(b.lens, r.len)
	b.kinds = append(b.kinds, k)
	b.gone = append(b.gone, false)
	b.rowOf[r.id] = int32(row)
	for i := range r.ends {
		t, ok := b.termIx[string(r.term(i))]
		if !ok {
			name := string(r.term(i))
			t = int32(len(b.names))
			b.termIx[name] = t
			b.names = append(b.names, name)
			b.posts = append(b.posts, termPosts{})
		}
		p := &b.posts[t]
		c := packFreqs(r.freqs[i])
		if c == escaped {
			if b.exc == nil {
				b.exc = map[[2]int32]freqs{}
			}
			b.exc[[2]int32{t, int32(len(p.rows))}] = r.freqs[i]
		}
		p.rows = append(p.rows, row)
		p.codes = append(p.codes, c)
	}
	b.nPost += len(r.ends)
}

// remove deletes id: its row in this batch, if any, and its rows in older
// segments.
func (b *builder) remove(id int64) {
	b.tombs[id] = struct{}{}
	if row, ok := b.rowOf[id]; ok {
		b.gone[row] = true
		delete(b.rowOf, id)
	}
}

// source returns the builder's content as a segment source: live rows in
// arrival order (renumbered past the gone ones), terms in byte order.
func (b *builder) source() *builderSource {
	s := &builderSource{b: b}
	s.remap = make([]uint32, len(b.ids))
	for row, g := range b.gone {
		if g {
			s.remap[row] = ^uint32(0)
			continue
		}
		s.remap[row] = uint32(len(s.ids))
		s.ids = append(s.ids, b.ids[row])
		s.lens = append(s.lens, b.lens[row])
		s.kinds = append(s.kinds, b.kinds[row])
	}
	s.tombs = make([]int64, 0, len(b.tombs))
	for id := range b.tombs {
		s.tombs = append(s.tombs, id)
	}
	slices.Sort(s.tombs)
	s.order = make([]int32, len(b.names))
	for i := range s.order {
		s.order[i] = int32(i)
	}
	sort.Slice(s.order, func(i, j int) bool { return b.names[s.order[i]] < b.names[s.order[j]] })
	return s
}

// builderSource is a builder's content prepared for writeSegment.
type builderSource struct {
	b     *builder
	remap []uint32 // builder row → written row (^0: gone)
	ids   []int64
	lens  []uint32
	kinds []uint8
	tombs []int64
	order []int32 // term indexes in byte order
	rows  []uint32
	f     []freqs
}

func (s *builderSource) rowData() ([]int64, []uint32, []uint8, []string) {
	return s.ids, s.lens, s.kinds, s.b.kindNm
}

func (s *builderSource) tombstones() []int64 { return s.tombs }

func (s *builderSource) eachTerm(fn func(term []byte, rows []uint32, f []freqs) error) error {
	anyGone := len(s.b.rowOf) < len(s.b.ids)
	for _, t := range s.order {
		p := &s.b.posts[t]
		rows := p.rows
		s.rows, s.f = s.rows[:0], s.f[:0]
		for i, r := range p.rows {
			if anyGone {
				if r = s.remap[r]; r == ^uint32(0) {
					continue
				}
				s.rows = append(s.rows, r)
			}
			f := s.b.exc[[2]int32{t, int32(i)}]
			if c := p.codes[i]; c != escaped {
				f = unpackFreqs(c)
			}
			s.f = append(s.f, f)
		}
		if anyGone {
			rows = s.rows
		}
		if len(rows) == 0 {
			continue
		}
		if err := fn([]byte(s.b.names[t]), rows, s.f); err != nil {
			return err
		}
	}
	return nil
}
