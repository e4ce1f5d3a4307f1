package hashing

// table accumulates feature weights by mixed key. Reset is O(1) (slots of
// older generations count as empty) and features are visited in first
// insertion order, so results never depend on the table's size or history.
type table struct {
	slots []slot
	gen   uint32
	order []int32 // slot indexes in insertion order
}

type slot struct {
	key  uint64
	gen  uint32
	n    uint32  // occurrences
	wsum float32 // sum of occurrence weights
}

func (t *table) reset() {
	t.order = t.order[:0]
	t.gen++
	if t.gen == 0 { // wrapped: stale slots could look current
		clear(t.slots)
		t.gen = 1
	}
	if len(t.slots) == 0 {
		t.slots = make([]slot, 1024)
	}
}

// add records one occurrence of mixed key m with weight w.
func (t *table) add(m uint64, w float32) {
	if 2*(len(t.order)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := m & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			*s = slot{key: m, gen: t.gen, n: 1, wsum: w}
			t.order = append(t.order, int32(i))
			return
		}
		if s.key == m {
			s.n++
			s.wsum += w
			return
		}
	}
}

// grow doubles the table, keeping insertion order.
func (t *table) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for j, oi := range t.order {
		s := old[oi]
		i := s.key & mask
		for t.slots[i].gen == t.gen {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.order[j] = int32(i)
	}
}
