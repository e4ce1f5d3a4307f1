package postings

import "runtime"

// Holding reports, for each of ids that has a live row in s, whether that
// row holds term within cols: every token of term (tokenized as a query
// term) in one of those columns, as Search matches a term. An id without
// a live row (not applied to the index yet, or deleted) is absent from
// the result, so a caller can tell "no" from "not known here".
//
// A row holds a word's tokens whenever its column's text holds the word,
// so a false answer proves the word absent from that column's text; a
// true one does not prove it present (tokens are lower-cased and stemmed,
// and a term of several tokens may find them apart).
func (s *Snapshot) Holding(term string, cols ColumnSet, ids []int64) (out map[int64]bool, err error) {
	out = make(map[int64]bool, len(ids))
	if s == nil || len(ids) == 0 {
		return out, nil
	}
	if cols == 0 {
		cols = AllColumns
	}
	toks, err := Tokens(term)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, damaged(r)
		}
		runtime.KeepAlive(s)
	}()
	// Each segment's term indexes of the tokens, looked up once (-1: the
	// segment lacks the token).
	terms := make([][]int, len(s.segs))
	for si, g := range s.segs {
		for _, tok := range toks {
			terms[si] = append(terms[si], g.find([]byte(tok)))
		}
	}
	for _, id := range ids {
		// The newest segment holding the id has its only live copy, if any.
		for si := len(s.segs) - 1; si >= 0; si-- {
			g := s.segs[si]
			r := g.rowOf(id)
			if r < 0 {
				continue
			}
			if !isDead(s.dead[si], uint32(r)) {
				out[id] = g.holds(uint32(r), terms[si], cols)
			}
			break
		}
	}
	return out, nil
}

// holds reports whether row r holds every term of terms (indexes; -1 for
// one the segment lacks) within cols, all in one column (vacuously true of
// no terms).
func (g *segment) holds(r uint32, terms []int, cols ColumnSet) bool {
	if len(terms) == 0 {
		return true
	}
	var f freqs
	for k, t := range terms {
		if t < 0 {
			return false
		}
		rows, packed, _ := g.block(t)
		j := seek(rows, 0, r)
		if j == len(rows) || rows[j] != r {
			return false
		}
		tf := g.freqsAt(t, j, packed[j])
		if k == 0 {
			f = tf
			continue
		}
		for c := range numCols {
			f[c] = min(f[c], tf[c])
		}
	}
	_, in := within(f, cols)
	return in
}
