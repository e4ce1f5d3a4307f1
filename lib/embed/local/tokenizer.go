package local

import (
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Reserved vocabulary ids of the USE-Lite SentencePiece model: <unk>, <s>,
// </s> and three extra ids. They are never produced by segmentation except
// Unknown, which stands for a character no piece covers.
const (
	Unknown  = 0
	reserved = 6
)

// separator replaces every space and starts every non-empty input, as
// SentencePiece's "▁" meta symbol.
const separator = '\u2581'

// Tokenizer segments text into vocabulary ids exactly like the tokenizer of
// @energetic-ai/embeddings 0.2.0 (the tfjs Universal Sentence Encoder
// tokenizer): NFKC normalisation, "▁" prepended and every U+0020 replaced by
// "▁", unigram Viterbi over the vocabulary's log-probabilities with that
// implementation's tie and zero-score rules, and runs of unknown characters
// merged into one Unknown id. It is safe for concurrent use.
type Tokenizer struct {
	// ascii maps an ASCII code point to its symbol class (0: in no piece).
	ascii [utf8.RuneSelf]uint16
	// class maps other code points to their symbol class.
	class map[rune]uint16
	// edges maps (node<<8 | class) to the child node, open addressing.
	edges []edge
	mask  uint32
	// root holds the root's children by class, skipping one hash lookup
	// per position.
	root [256]uint32
	// piece and score of each trie node; piece < 0 for inner nodes.
	piece []int32
	score []float64
	// back is each id's length in UTF-16 units, the step the reference
	// implementation takes when walking the best path backwards.
	back []int32

	scratch sync.Pool
}

type edge struct {
	key   uint32 // node<<8 | class, +1 so that 0 means empty
	child uint32
}

type lattice struct {
	sym   []uint16
	best  []float64
	words []int32
	out   []int32
}

// NewTokenizer builds a tokenizer over pieces and their unigram
// log-probabilities; ids are indices into pieces. The first six ids are
// reserved and never matched. It fails if the vocabulary uses more than 255
// distinct characters.
func NewTokenizer(pieces []string, scores []float64) (*Tokenizer, error) {
	if len(pieces) != len(scores) {
		return nil, errTable("vocabulary has %d pieces but %d scores", len(pieces), len(scores))
	}
	t := &Tokenizer{class: map[rune]uint16{}, piece: []int32{-1}, score: []float64{0}}
	classOf := func(r rune) (uint16, error) {
		if c := t.lookup(r); c != 0 {
			return c, nil
		}
		n := uint16(len(t.class) + 1)
		for _, c := range t.ascii {
			if c != 0 {
				n++
			}
		}
		if n > 255 {
			return 0, errTable("vocabulary uses more than 255 distinct characters")
		}
		if r < utf8.RuneSelf {
			t.ascii[r] = n
		} else {
			t.class[r] = n
		}
		return n, nil
	}
	edges := map[uint32]uint32{}
	t.back = make([]int32, len(pieces))
	for id, p := range pieces {
		t.back[id] = int32(len(utf16.Encode([]rune(p))))
		if id < reserved || p == "" {
			continue
		}
		node := uint32(0)
		for _, r := range p {
			c, err := classOf(r)
			if err != nil {
				return nil, err
			}
			k := node<<8 | uint32(c)
			child, ok := edges[k]
			if !ok {
				child = uint32(len(t.piece))
				t.piece = append(t.piece, -1)
				t.score = append(t.score, 0)
				edges[k] = child
			}
			node = child
		}
		// A repeated piece takes the later id and score, as in the reference.
		t.piece[node] = int32(id)
		t.score[node] = scores[id]
	}
	if len(t.piece) >= 1<<24 {
		return nil, errTable("vocabulary trie too large")
	}
	size := uint32(1)
	for size < uint32(2*len(edges)+1) {
		size <<= 1
	}
	t.edges = make([]edge, size)
	t.mask = size - 1
	for k, child := range edges {
		i := hashKey(k) & t.mask
		for t.edges[i].key != 0 {
			i = (i + 1) & t.mask
		}
		t.edges[i] = edge{key: k + 1, child: child}
	}
	for c := range t.root {
		t.root[c] = t.child(0, uint16(c))
	}
	t.scratch.New = func() any { return &lattice{} }
	return t, nil
}

func hashKey(k uint32) uint32 {
	k *= 0x9E3779B1
	return k ^ k>>15
}

func (t *Tokenizer) lookup(r rune) uint16 {
	if r < utf8.RuneSelf {
		if r < 0 {
			return 0
		}
		return t.ascii[r]
	}
	return t.class[r]
}

// child returns the node reached from node by class c, or 0.
func (t *Tokenizer) child(node uint32, c uint16) uint32 {
	k := node<<8 | uint32(c) + 1
	for i := hashKey(k-1) & t.mask; ; i = (i + 1) & t.mask {
		e := t.edges[i]
		if e.key == k {
			return e.child
		}
		if e.key == 0 {
			return 0
		}
	}
}

// Encode returns the ids of s. The empty string has no ids.
func (t *Tokenizer) Encode(s string) []int {
	ids := t.AppendEncode(nil, s)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

// AppendEncode appends the ids of s to dst and returns the extended slice.
func (t *Tokenizer) AppendEncode(dst []int32, s string) []int32 {
	if !isASCII(s) {
		s = norm.NFKC.String(s)
	}
	if s == "" {
		return dst
	}
	l := t.scratch.Get().(*lattice)
	defer t.scratch.Put(l)

	sym := append(l.sym[:0], t.lookup(separator))
	for _, r := range s {
		if r == ' ' {
			r = separator
		}
		sym = append(sym, t.lookup(r))
	}
	l.sym = sym
	n := len(sym)
	best := grow(l.best, n+1)
	words := growInt(l.words, n+1)
	l.best, l.words = best, words

	// Forward pass in start order: for every end position the candidates
	// arrive by increasing start, as the reference iterates them, and a
	// candidate wins when the end is still at 0 or it scores >= the best.
	for i := 0; i < n; i++ {
		base := best[i]
		matched := false
		if c := sym[i]; c != 0 {
			node := t.root[c]
			for j := i; node != 0; {
				if id := t.piece[node]; id >= 0 {
					matched = true
					e := j + 1
					if sc := t.score[node] + base; best[e] == 0 || sc >= best[e] {
						best[e] = sc
						words[e] = id
					}
				}
				j++
				if j >= n || sym[j] == 0 {
					break
				}
				node = t.child(node, sym[j])
			}
		}
		if !matched {
			// No piece starts here: the character is Unknown with score 0.
			if e := i + 1; best[e] == 0 || base >= best[e] {
				best[e] = base
				words[e] = Unknown
			}
		}
	}

	out := l.out[:0]
	for i := n; i > 0; {
		id := words[i]
		if !(id == Unknown && len(out) > 0 && out[len(out)-1] == Unknown) {
			out = append(out, id)
		}
		i -= int(t.back[id])
	}
	l.out = out
	for i := len(out) - 1; i >= 0; i-- {
		dst = append(dst, out[i])
	}
	return dst
}

func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		b = make([]float64, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func growInt(b []int32, n int) []int32 {
	if cap(b) < n {
		b = make([]int32, n)
	}
	b = b[:n]
	clear(b)
	return b
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
