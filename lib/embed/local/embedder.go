// Package local is dir2mcp's offline embedder: a static token table
// distilled from Universal Sentence Encoder Lite (scripts/distill), a pure-Go
// copy of that model's SentencePiece tokenizer, and weighted mean pooling.
// It needs no network, no key and no model files at run time.
package local

import (
	"context"
	"math"
	"strconv"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// Name is the provider name under which the embedder is registered.
const Name = "local"

// Embedder embeds text with a token table. It is safe for concurrent use.
type Embedder struct {
	table *Table
	tok   *Tokenizer
	err   error
	id    string
	once  sync.Once
	load  func() (*Table, *Tokenizer, error)
	pool  sync.Pool
	// peek, when set, tells the table's dimension and content hash without
	// decoding it, so ID and Dim cost nothing before the first Embed.
	peek func() (dim int, hash string, err error)
}

var _ embed.Embedder = (*Embedder)(nil)

// New returns the embedder over the table built into the binary. The table
// is decoded on first use (once per process, shared by all embedders).
func New() *Embedder {
	return &Embedder{load: DefaultTable, peek: defaultTableInfo}
}

// NewWithTable returns an embedder over t.
func NewWithTable(t *Table) (*Embedder, error) {
	tok, err := NewTokenizer(t.Pieces, t.Scores)
	if err != nil {
		return nil, err
	}
	return &Embedder{load: func() (*Table, *Tokenizer, error) { return t, tok, nil }}, nil
}

// Load decodes the table now rather than on first use and reports whether
// it is usable (a *errcode.Error with CONFIG_INVALID if not).
func (e *Embedder) Load() error { return e.init() }

// Check reports whether the table looks usable (a *errcode.Error with
// CONFIG_INVALID if not) without decoding it when it can: for the table
// built into the binary it reads the header (dimension, shape) and the
// stored checksum, ~0.1 ms instead of the ~20 ms of decoding 2 MB and
// building the tokenizer. The table is then decoded, and its checksum
// verified, on first use (or by Load).
func (e *Embedder) Check() error {
	if e.peek == nil {
		return e.init()
	}
	_, _, err := e.peek()
	return err
}

func (e *Embedder) init() error {
	e.once.Do(func() {
		e.table, e.tok, e.err = e.load()
		if e.err == nil {
			e.id = idFor(e.table)
		}
	})
	return e.err
}

func idFor(t *Table) string { return idOf(t.Dim, t.Hash) }

func idOf(dim int, hash string) string {
	return "local-use-lite-static/" + strconv.Itoa(dim) + "@" + hash[:12] + "." + TextVersion
}

// ID names the model, its dimension, the table's content hash prefix and the
// text preparation version, e.g. "local-use-lite-static/256@0123456789ab.t1".
// It is "local-use-lite-static/invalid" if the table cannot be loaded.
func (e *Embedder) ID() string {
	if e.peek != nil {
		if dim, hash, err := e.peek(); err == nil {
			return idOf(dim, hash)
		}
	}
	if e.init() != nil {
		return "local-use-lite-static/invalid"
	}
	return e.id
}

// Dim is the table's row length (0 if the table cannot be loaded).
func (e *Embedder) Dim() int {
	if e.peek != nil {
		if dim, _, err := e.peek(); err == nil {
			return dim
		}
	}
	if e.init() != nil {
		return 0
	}
	return e.table.Dim
}

// Embed returns one L2-normalised vector per input. Code chunks are
// prepared with CodeText, queries with QueryText, other text with Normalize.
// A text with no tokens (empty or only white space) gets the zero vector,
// which is similar to nothing.
func (e *Embedder) Embed(ctx context.Context, in []embed.Input) ([][]float32, error) {
	if err := e.init(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(in))
	sc, _ := e.pool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{count: make([]float32, len(e.table.Pieces))}
	}
	defer e.pool.Put(sc)
	for i, x := range in {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, errcode.Wrap(errcode.EmbedFailed, err, "embedding cancelled")
			}
		}
		sc.ids = e.tok.AppendEncode(sc.ids[:0], Prepare(x))
		out[i] = e.sumRows(sc)
	}
	return out, nil
}

// Prepare returns the text the embedder tokenizes for in.
func Prepare(in embed.Input) string {
	switch {
	case in.Query:
		return QueryText(in.Kind, in.Text)
	case in.Kind == "code":
		return CodeText(in.Path, in.Text)
	}
	return Normalize(in.Text)
}

// scratch is per-goroutine working memory of Embed.
type scratch struct {
	ids      []int32
	count    []float32 // occurrences of each id in ids; all zero between uses
	distinct []int32
}

// sumRows sums the rows of sc.ids and normalises the sum. Each distinct id
// is added once, times its count.
func (e *Embedder) sumRows(sc *scratch) []float32 {
	v := make([]float32, e.table.Dim)
	sc.distinct = sc.distinct[:0]
	for _, id := range sc.ids {
		if sc.count[id] == 0 {
			sc.distinct = append(sc.distinct, id)
		}
		sc.count[id]++
	}
	for _, id := range sc.distinct {
		e.table.addRow(v, id, sc.count[id])
		sc.count[id] = 0
	}
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(ss))
	for j := range v {
		v[j] *= inv
	}
	return v
}
