package local

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// tableFile is the distilled token table written by scripts/distill.
//
//go:embed table.bin
var tableFile []byte

const (
	tableMagic   = "D2MTOKV1"
	tableVersion = 1
	rowsFloat32  = 0
	rowsInt8     = 1
)

// Table is a static token-vector table: the tokenizer vocabulary with its
// unigram log-probabilities and one pooling vector per vocabulary id (the
// pooling weight is folded into the vector). Rows stay int8 in memory when
// the file is quantised.
type Table struct {
	// Pieces and Scores are the SentencePiece vocabulary, indexed by id.
	Pieces []string
	Scores []float64
	// Dim is the length of every row.
	Dim int
	// Hash is the hex SHA-256 of the table file's body.
	Hash string
	// Meta is the generator's JSON description of how the table was made.
	Meta json.RawMessage

	scale []float32 // per-row scale (int8 rows)
	q     []int8    // int8 rows, len(Pieces)*Dim
	f     []float32 // float32 rows, len(Pieces)*Dim
}

func errTable(format string, args ...any) error {
	return errcode.New(errcode.ConfigInvalid, "local embedder table: "+format, args...)
}

// ParseTable decodes a table file (format in scripts/distill/README.md) and
// checks its trailing SHA-256. The returned table does not alias b.
func ParseTable(b []byte) (*Table, error) {
	if len(b) < 24+4+sha256.Size || string(b[:8]) != tableMagic {
		return nil, errTable("not a token table (bad magic or too short)")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	got := sha256.Sum256(body)
	if !bytes.Equal(got[:], sum) {
		return nil, errTable("checksum mismatch (file corrupt)")
	}
	le := binary.LittleEndian
	if v := le.Uint32(body[8:]); v != tableVersion {
		return nil, errTable("unsupported format version %d", v)
	}
	n, dim, kind := int(le.Uint32(body[12:])), int(le.Uint32(body[16:])), le.Uint32(body[20:])
	if n <= reserved || n > 1<<20 || dim <= 0 || dim > 4096 {
		return nil, errTable("implausible shape %d×%d", n, dim)
	}
	t := &Table{Dim: dim, Hash: hex.EncodeToString(got[:]), Pieces: make([]string, n), Scores: make([]float64, n)}
	r := body[24:]
	take := func(k int) ([]byte, error) {
		if len(r) < k {
			return nil, errTable("truncated")
		}
		out := r[:k]
		r = r[k:]
		return out, nil
	}
	h, err := take(4)
	if err != nil {
		return nil, err
	}
	meta, err := take(int(le.Uint32(h)))
	if err != nil {
		return nil, err
	}
	t.Meta = json.RawMessage(bytes.Clone(meta))
	for i := range n {
		h, err := take(10)
		if err != nil {
			return nil, err
		}
		t.Scores[i] = math.Float64frombits(le.Uint64(h))
		p, err := take(int(le.Uint16(h[8:])))
		if err != nil {
			return nil, err
		}
		t.Pieces[i] = string(p)
	}
	switch kind {
	case rowsFloat32:
		v, err := take(4 * n * dim)
		if err != nil {
			return nil, err
		}
		t.f = make([]float32, n*dim)
		for i := range t.f {
			t.f[i] = math.Float32frombits(le.Uint32(v[4*i:]))
		}
	case rowsInt8:
		s, err := take(4 * n)
		if err != nil {
			return nil, err
		}
		t.scale = make([]float32, n)
		for i := range t.scale {
			t.scale[i] = math.Float32frombits(le.Uint32(s[4*i:]))
		}
		v, err := take(n * dim)
		if err != nil {
			return nil, err
		}
		t.q = make([]int8, n*dim)
		for i, x := range v {
			t.q[i] = int8(x)
		}
	default:
		return nil, errTable("unknown row encoding %d", kind)
	}
	if len(r) != 0 {
		return nil, errTable("%d trailing bytes", len(r))
	}
	return t, nil
}

// addRow adds row id, times w, to acc (len(acc) == t.Dim).
func (t *Table) addRow(acc []float32, id int32, w float32) {
	o := int(id) * t.Dim
	if t.q != nil {
		w *= t.scale[id]
		row := t.q[o : o+len(acc)]
		for j, x := range row {
			acc[j] += w * float32(x)
		}
		return
	}
	row := t.f[o : o+len(acc)]
	for j, x := range row {
		acc[j] += w * x
	}
}

var defaultTable struct {
	once sync.Once
	t    *Table
	tok  *Tokenizer
	err  error
}

var defaultInfo struct {
	once sync.Once
	dim  int
	hash string
	err  error
}

// defaultTableInfo returns the dimension and content hash of the table
// built into the binary from its header and stored checksum, without
// decoding it: what ParseTable would report for an intact file (which the
// tests check; a table that fails its checksum fails on first use).
func defaultTableInfo() (int, string, error) {
	d := &defaultInfo
	d.once.Do(func() { d.dim, d.hash, d.err = peekTable(tableFile) })
	return d.dim, d.hash, d.err
}

// peekTable reads a table file's dimension and stored body checksum (hex),
// checking the header as ParseTable does but not the checksum itself.
func peekTable(b []byte) (int, string, error) {
	if len(b) < 24+4+sha256.Size || string(b[:8]) != tableMagic {
		return 0, "", errTable("not a token table (bad magic or too short)")
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != tableVersion {
		return 0, "", errTable("unsupported format version %d", v)
	}
	n, dim := int(le.Uint32(b[12:])), int(le.Uint32(b[16:]))
	if n <= reserved || n > 1<<20 || dim <= 0 || dim > 4096 {
		return 0, "", errTable("implausible shape %d×%d", n, dim)
	}
	return dim, hex.EncodeToString(b[len(b)-sha256.Size:]), nil
}

// DefaultTable returns the table built into the binary and its tokenizer,
// decoded once on first use and shared.
func DefaultTable() (*Table, *Tokenizer, error) {
	d := &defaultTable
	d.once.Do(func() {
		d.t, d.err = ParseTable(tableFile)
		if d.err == nil {
			d.tok, d.err = NewTokenizer(d.t.Pieces, d.t.Scores)
		}
	})
	return d.t, d.tok, d.err
}
