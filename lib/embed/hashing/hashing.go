// Package hashing is dir2mcp's offline default embedder: deterministic
// feature hashing, no model files and no network.
//
// A text's features are its words and their identifier parts (see
// lib/textsplit: parseHTTPHeader2 gives parsehttpheader2, parse, http,
// header), case-folded, plus character trigrams of each part at a lower
// weight. For code inputs the words of the file's path (without its
// extension) are added at a small weight. Tokens of a single character
// are skipped and common English and code keywords (the, of, func,
// return, err, ...) are down-weighted.
//
// Each distinct feature gets the weight (mean occurrence weight)·(1+ln tf),
// is hashed (FNV-1a, then SplitMix64) to one of Dim dimensions with a sign
// taken from another hash bit, and the vector is L2-normalised. Similar
// vocabularies give high cosine similarity.
//
// Queries and documents are embedded alike; Input.Query and Input.Lang are
// not used. Vectors depend only on the input and Dim: features are
// accumulated in first-occurrence order and no floating-point step is open
// to fused multiply-add, so runs and platforms agree bit for bit
// (TestGolden pins one vector; a Go release with newer Unicode tables can
// only change the case folding of newly assigned characters).
package hashing

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/textsplit"
)

// Version names the feature set and weights. Any change that alters
// vectors must change it, so old indices are rebuilt instead of mixed.
const Version = "hash-v1"

// DefaultDim is the default vector length.
const DefaultDim = 512

// Feature weights of Version, tuned on doc-comment → function retrieval
// over Go standard library packages (see quality_test.go).
const (
	wordWeight    = 1.0 // a word, a part of an identifier, or a whole identifier
	trigramWeight = 0.5 // one character trigram of a part
	pathWeight    = 0.5 // a word or part of a code file's path
	stopFactor    = 0.2 // multiplier for stopwords
	numberFactor  = 0.5 // multiplier for all-digit tokens
	maxWordBytes  = 64  // longer words are one feature, not split
)

// Embedder is the feature-hashing embedder. It is safe for concurrent use.
type Embedder struct {
	dim  int
	id   string
	pool sync.Pool // *state
}

// New returns an embedder of dim dimensions (8..65536).
func New(dim int) (*Embedder, error) {
	if dim < 8 || dim > 1<<16 {
		return nil, errcode.FieldError(errcode.ConfigInvalid, "dim", "hashing embedder dimension %d out of range 8..65536", dim)
	}
	e := &Embedder{dim: dim, id: Version + "/" + strconv.Itoa(dim)}
	e.pool.New = func() any { return new(state) }
	return e, nil
}

// ID returns Version and the dimension, e.g. "hash-v1/512".
func (e *Embedder) ID() string { return e.id }

// Dim returns the vector length.
func (e *Embedder) Dim() int { return e.dim }

// Embed returns one L2-normalised vector per input, in order. An input
// with no features (empty or only punctuation) gets the zero vector. The
// vectors share one backing array. It fails only if ctx is done.
func (e *Embedder) Embed(ctx context.Context, in []embed.Input) ([][]float32, error) {
	out := make([][]float32, len(in))
	slab := make([]float32, len(in)*e.dim)
	s := e.pool.Get().(*state)
	defer e.pool.Put(s)
	for i := range in {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v := slab[i*e.dim : (i+1)*e.dim : (i+1)*e.dim]
		s.embed(in[i], v)
		out[i] = v
	}
	return out, nil
}

// EmbedInto writes the vector of in into dst, which must have length Dim.
// It does not allocate once warmed up.
func (e *Embedder) EmbedInto(dst []float32, in embed.Input) {
	if len(dst) != e.dim {
		panic("hashing: EmbedInto: dst has length " + strconv.Itoa(len(dst)) + ", want " + strconv.Itoa(e.dim))
	}
	s := e.pool.Get().(*state)
	s.embed(in, dst)
	e.pool.Put(s)
}

// state is the per-goroutine scratch space.
type state struct {
	t table
}

func (s *state) embed(in embed.Input, dst []float32) {
	s.t.reset()
	s.text(in.Text)
	if in.Kind == "code" && in.Path != "" {
		s.path(in.Path)
	}
	s.project(dst)
}

// text adds the features of prose or code.
func (s *state) text(text string) {
	textsplit.EachWord(text, func(w string) {
		if len(w) > maxWordBytes {
			s.t.add(mix(wordKey(w)), wordWeight)
			return
		}
		single := false
		textsplit.EachPart(w, func(p string) {
			single = len(p) == len(w)
			s.token(p, wordWeight, true)
		})
		if !single {
			s.token(w, wordWeight, false)
		}
	})
}

// path adds the words of a file path without its extension.
func (s *state) path(p string) {
	if i := strings.LastIndexByte(p, '.'); i > strings.LastIndexByte(p, '/')+1 {
		p = p[:i]
	}
	textsplit.EachWord(p, func(w string) {
		if len(w) > maxWordBytes {
			return
		}
		single := false
		textsplit.EachPart(w, func(part string) {
			single = len(part) == len(w)
			s.token(part, pathWeight, false)
		})
		if !single {
			s.token(w, pathWeight, false)
		}
	})
}

// token adds a word feature for tok and, if trigrams is set, its
// character trigrams. Single-character tokens are skipped.
func (s *state) token(tok string, w float32, trigrams bool) {
	if len(tok) < 2 || (len(tok) <= utf8.UTFMax && utf8.RuneCountInString(tok) < 2) {
		return
	}
	m := mix(wordKey(tok))
	switch {
	case isStop(m):
		s.t.add(m, w*stopFactor)
		return
	case allDigits(tok):
		s.t.add(m, w*numberFactor)
		return
	}
	s.t.add(m, w)
	if trigrams {
		s.trigrams(tok)
	}
}

// trigrams adds the case-folded character trigrams of tok framed by
// boundary marks: "parse" gives ^pa, par, ars, rse, se$. Tokens shorter
// than three characters have none.
func (s *state) trigrams(tok string) {
	var p1, p2 rune // the previous two characters
	n := 0
	for _, r := range tok {
		r = fold(r)
		n++
		switch {
		case n == 3:
			s.t.add(mix(trigramKey(0, p1, p2)), trigramWeight)
			fallthrough
		case n > 3:
			s.t.add(mix(trigramKey(p1, p2, r)), trigramWeight)
		}
		p1, p2 = p2, r
	}
	if n >= 3 {
		s.t.add(mix(trigramKey(p1, p2, 0)), trigramWeight)
	}
}

// project hashes the accumulated features into dst and L2-normalises it.
func (s *state) project(dst []float32) {
	clear(dst)
	dim := len(dst)
	for _, i := range s.t.order {
		sl := &s.t.slots[i]
		mean := sl.wsum / float32(sl.n)
		v := float32(tfWeight(sl.n) * mean)
		j, neg := bucket(sl.key, dim)
		if neg {
			dst[j] -= v
		} else {
			dst[j] += v
		}
	}
	var ss float64
	for _, x := range dst {
		ss += float64(x) * float64(x) // exact product: same with or without FMA
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range dst {
		dst[i] = float32(float64(x) * inv)
	}
}

// tfWeight is the sublinear term-frequency weight 1+ln(n).
func tfWeight(n uint32) float32 {
	if int(n) < len(tfTable) {
		return tfTable[n]
	}
	return float32(1 + math.Log(float64(n)))
}

var tfTable = func() (t [256]float32) {
	for n := 1; n < len(t); n++ {
		t[n] = float32(1 + math.Log(float64(n)))
	}
	return t
}()

func fold(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
