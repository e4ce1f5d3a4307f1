package exclude

import "slices"

// literalIndex finds, in one pass over a content, every occurrence of every
// leading literal of a Redactor's rules. Looking for each literal's rarest
// byte (eachLiteral) costs a scan of that byte's offsets per literal: on
// text a search answer holds (snippets, paths), with some 140 literals of
// the default rules, that was most of the masking time, and a short string
// (a path, a title) paid it for every literal. The index instead reads the
// content once, drops at once the places where no literal starts (bit
// sets of the literals' first two bytes and of a hash of their first
// three, lower-cased), looks up the literals starting with the next three
// bytes only where one may start, and compares those. It finds exactly the offsets eachLiteral visits, in
// ascending order.
type literalIndex struct {
	lits []literal // distinct literals (bytes and fold), each at least 3 bytes
	// pairs has the bit of each literal's first two bytes (lower-cased),
	// triples the bit of hash3 of its first three.
	pairs, triples [1 << 16 / 64]uint64
	// starts maps the first three bytes of literals (lower-cased) to them.
	starts map[uint32][]int32
	// rules lists, for each literal, the rules it leads.
	rules [][]int32
}

// newLiteralIndex indexes the leading literals of rules and sets each
// rule's lit ids. Rules without the prefix strategy get none.
func newLiteralIndex(rules []redactRule) *literalIndex {
	x := &literalIndex{starts: map[uint32][]int32{}}
	ids := map[string]int32{}
	for i := range rules {
		a := rules[i].alt
		if a == nil || a.anchored == nil {
			continue
		}
		rules[i].litIDs = make([]int32, len(a.lits))
		for j, l := range a.lits {
			if len(l.b) < 3 {
				return nil // cannot happen (minPrefixLen); the rules keep eachLiteral
			}
			key := string(l.b)
			if l.fold {
				key = "\x00" + key
			}
			id, ok := ids[key]
			if !ok {
				id = int32(len(x.lits))
				ids[key] = id
				x.lits = append(x.lits, l)
				k := key3(l.b[0], l.b[1], l.b[2])
				x.starts[k] = append(x.starts[k], id)
				p, h := k>>8, hash3(k)
				x.pairs[p/64] |= 1 << (p % 64)
				x.triples[h/64] |= 1 << (h % 64)
				x.rules = append(x.rules, nil)
			}
			if !slices.Contains(x.rules[id], int32(i)) {
				x.rules[id] = append(x.rules[id], int32(i))
			}
			rules[i].litIDs[j] = id
		}
	}
	return x
}

// lowerASCII maps A-Z to a-z and every other byte to itself.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func hash3(k uint32) uint16 { return uint16((k * 0x9E3779B1) >> 16) }

func key3(a, b, c byte) uint32 {
	return uint32(lowerASCII[a])<<16 | uint32(lowerASCII[b])<<8 | uint32(lowerASCII[c])
}

// find fills occ[id] with the ascending offsets of literal id in content,
// for every literal.
func (x *literalIndex) find(content []byte, occ [][]int) {
	for i := range occ {
		occ[i] = occ[i][:0]
	}
	if len(content) < 3 {
		return
	}
	pairs := &x.pairs
	p := uint16(lowerASCII[content[0]]) // the pair of bytes ending at i, lower-cased
	for i := 1; i < len(content)-1; i++ {
		p = p<<8 | uint16(lowerASCII[content[i]])
		if pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		start := i - 1
		k := uint32(p)<<8 | uint32(lowerASCII[content[i+1]]) // key3 of content[start:start+3]
		if h := hash3(k); x.triples[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		for _, id := range x.starts[k] {
			l := &x.lits[id]
			if start+len(l.b) > len(content) {
				continue
			}
			w := content[start : start+len(l.b)]
			if l.fold && equalFoldLower(w, l.b) || !l.fold && string(w) == string(l.b) {
				occ[id] = append(occ[id], start)
			}
		}
	}
}

// liveRules returns, for each of n rules, whether one of its leading
// literals occurs in st's content (literalOffsets).
func (st *matchState) liveRules(x *literalIndex, n int) []bool {
	occ := st.literalOffsets(x)
	st.live = slices.Grow(st.live[:0], n)[:n]
	clear(st.live)
	for id, at := range occ {
		if len(at) > 0 {
			for _, r := range x.rules[id] {
				st.live[r] = true
			}
		}
	}
	return st.live
}

// literalOffsets returns the offsets of each literal of x in st's content,
// found once per content.
func (st *matchState) literalOffsets(x *literalIndex) [][]int {
	if st.litGen != st.gen || st.litIndex != x {
		if cap(st.litOcc) < len(x.lits) {
			st.litOcc = make([][]int, len(x.lits))
		}
		st.litOcc = st.litOcc[:len(x.lits)]
		x.find(st.content, st.litOcc)
		st.litGen, st.litIndex = st.gen, x
	}
	return st.litOcc
}
