package exclude

import (
	"bytes"
	"sync"
)

// matchState caches per-content work shared by all alternatives: whether
// the content has non-ASCII bytes or holds a given escape rune, and where a
// given byte occurs.
type matchState struct {
	content  []byte
	nonASCII int8 // 0 unknown, 1 yes, -1 no
	escapes  []escapeSeen
	// occ[c] lists the offsets of byte c in the content when its gen is
	// the state's (each reset starts a new generation, so the lists of
	// the previous content are reused without clearing them).
	occ [256]occurrences
	gen uint32
	// litOcc lists the offsets of each literal of litIndex in the content
	// when litGen is the state's generation (literalOffsets).
	litOcc   [][]int
	litGen   uint32
	litIndex *literalIndex
	live     []bool // liveRules
}

type escapeSeen struct {
	rune  string
	found bool
}

// occurrences lists the offsets of a byte in the content.
type occurrences struct {
	pos []int
	gen uint32
}

// maxOccLen is the content length up to which byte offsets are cached
// (beyond it a frequent byte's offsets would take a lot of memory).
const maxOccLen = 4 << 20

var statePool = sync.Pool{New: func() any { return new(matchState) }}

func (st *matchState) reset(content []byte) {
	st.content = content
	st.nonASCII = 0
	st.escapes = st.escapes[:0]
	if st.gen++; st.gen == 0 { // wrapped: forget every list
		st.occ = [256]occurrences{}
		st.litGen = 0
		st.gen = 1
	}
}

func (st *matchState) hasNonASCII() bool {
	if st.nonASCII == 0 {
		st.nonASCII = -1
		if hasHighBit(st.content) {
			st.nonASCII = 1
		}
	}
	return st.nonASCII > 0
}

// holds reports whether the content contains the UTF-8 encoded rune r.
func (st *matchState) holds(r []byte) bool {
	if !st.hasNonASCII() {
		return false
	}
	for _, e := range st.escapes {
		if e.rune == string(r) {
			return e.found
		}
	}
	found := bytes.Contains(st.content, r)
	st.escapes = append(st.escapes, escapeSeen{string(r), found})
	return found
}

// positions returns the offsets of c in the content, computed once per
// content and byte.
func (st *matchState) positions(c byte) []int {
	o := &st.occ[c]
	if o.gen != st.gen {
		o.pos = appendPositions(o.pos[:0], st.content, c)
		o.gen = st.gen
	}
	return o.pos
}

func appendPositions(dst []int, hay []byte, c byte) []int {
	for off := 0; ; {
		i := bytes.IndexByte(hay[off:], c)
		if i < 0 {
			return dst
		}
		dst = append(dst, off+i)
		off += i + 1
	}
}

func (r *secretRule) match(content []byte, st *matchState) bool {
	for _, a := range r.alts {
		if a.match(content, st) {
			return true
		}
	}
	return false
}

func (a *alternative) match(content []byte, st *matchState) bool {
	for _, e := range a.escapes {
		if st.holds(e) {
			return a.re.Match(content)
		}
	}
	if !a.needsMet(content) {
		return false
	}
	switch {
	case a.runSet != nil:
		return hasRun(content, a.runSet, a.runMin)
	case a.anchored != nil:
		for i := range a.lits {
			if a.findLiteral(content, &a.lits[i], st) {
				return true
			}
		}
		return false
	}
	return a.re.Match(content)
}

// needsMet reports whether content holds every run and literal each match
// of the alternative holds (a.needs, a.needLits): when it does not, the
// alternative matches nowhere in it.
func (a *alternative) needsMet(content []byte) bool {
	for _, n := range a.needs {
		if !hasRun(content, n.set, n.min) {
			return false
		}
	}
	for _, l := range a.needLits {
		if !bytes.Contains(content, l) {
			return false
		}
	}
	return true
}

// findLiteral tries the anchored alternative at each occurrence of l.
func (a *alternative) findLiteral(content []byte, l *literal, st *matchState) bool {
	return eachLiteral(content, l, st, func(start int) bool { return a.anchored.Match(content[start:]) })
}

// eachLiteral calls visit with the offset of each occurrence of l in
// content until visit returns true, and reports whether it did. It looks
// for the literal's rarest byte (both cases for a case-insensitive letter)
// and compares the whole literal around each hit.
func eachLiteral(content []byte, l *literal, st *matchState, visit func(start int) bool) bool {
	n := len(l.b)
	try := func(p int) bool { // p is an offset of the rare byte
		start := p - l.rare
		if start < 0 || start+n > len(content) {
			return false
		}
		w := content[start : start+n]
		if l.fold && !equalFoldLower(w, l.b) || !l.fold && !bytes.Equal(w, l.b) {
			return false
		}
		return visit(start)
	}
	var both [2]byte // the rare byte, in both cases for a fold literal
	cases := both[:1]
	if both[0] = l.b[l.rare]; l.fold && 'a' <= both[0] && both[0] <= 'z' {
		both[1] = both[0] - 'a' + 'A'
		cases = both[:2]
	}
	for _, c := range cases {
		if len(content) <= maxOccLen {
			for _, p := range st.positions(c) {
				if try(p) {
					return true
				}
			}
			continue
		}
		for off := 0; ; {
			i := bytes.IndexByte(content[off:], c)
			if i < 0 {
				break
			}
			if try(off + i) {
				return true
			}
			off += i + 1
		}
	}
	return false
}

// equalFoldLower reports whether b equals lower, a lower-case ASCII string,
// ignoring ASCII case.
func equalFoldLower(b, lower []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasRun reports whether b holds at least n consecutive bytes of set. It
// probes the last byte of each candidate window first, so on typical text
// it inspects a fraction of the bytes.
func hasRun(b []byte, set *[256]bool, n int) bool {
	i := 0 // no run of n can start before i
	for i+n <= len(b) {
		j := i + n - 1
		if !set[b[j]] {
			i = j + 1
			continue
		}
		k := j - 1
		for k >= i && set[b[k]] {
			k--
		}
		if k < i {
			return true
		}
		i = k + 1
	}
	return false
}
