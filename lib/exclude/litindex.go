package exclude

// literalIndex finds, in one pass over a content, every occurrence of every
// leading literal of a Redactor's rules. Looking for each literal's rarest
// byte (eachLiteral) costs a scan of that byte's offsets per literal: on
// text a search answer holds (snippets, paths), with some 140 literals of
// the default rules, that was most of the masking time, and a short string
// (a path, a title) paid it for every literal. The index instead reads each
// three bytes of the content once, drops at once the places no literal
// starts (a filter on a hash of the three bytes, lower-cased), and compares
// the literals that start so only there. It finds exactly the offsets
// eachLiteral visits, in ascending order.
type literalIndex struct {
	lits []literal // distinct literals (bytes and fold), each at least 3 bytes
	// filter has the bit of hash3 of each literal's first three bytes.
	filter [1 << 16 / 64]uint64
	// starts maps the first three bytes of literals (lower-cased) to them.
	starts map[uint32][]int32
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
				h := hash3(k)
				x.filter[h/64] |= 1 << (h % 64)
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

func key3(a, b, c byte) uint32 {
	return uint32(lowerASCII[a])<<16 | uint32(lowerASCII[b])<<8 | uint32(lowerASCII[c])
}

func hash3(k uint32) uint32 { return (k * 0x9E3779B1) >> 16 }

// find fills occ[id] with the ascending offsets of literal id in content,
// for every literal.
func (x *literalIndex) find(content []byte, occ [][]int) {
	for i := range occ {
		occ[i] = occ[i][:0]
	}
	if len(content) < 3 {
		return
	}
	k := key3(0, content[0], content[1])
	for i := 0; i+3 <= len(content); i++ {
		k = (k<<8 | uint32(lowerASCII[content[i+2]])) & 0xffffff // key3 of content[i:i+3]
		h := hash3(k)
		if x.filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, id := range x.starts[k] {
			l := &x.lits[id]
			if i+len(l.b) > len(content) {
				continue
			}
			w := content[i : i+len(l.b)]
			if l.fold && equalFoldLower(w, l.b) || !l.fold && string(w) == string(l.b) {
				occ[id] = append(occ[id], i)
			}
		}
	}
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
