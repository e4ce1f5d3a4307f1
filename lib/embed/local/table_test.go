package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/embed"
)

// encodeTable writes a float32 table file (format in scripts/distill/README.md).
func encodeTable(pieces []string, scores []float64, rows [][]float32) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString(tableMagic)
	for _, v := range []uint32{tableVersion, uint32(len(pieces)), uint32(len(rows[0])), rowsFloat32, 2} {
		_ = binary.Write(&b, le, v)
	}
	b.WriteString("{}")
	for i, p := range pieces {
		_ = binary.Write(&b, le, math.Float64bits(scores[i]))
		_ = binary.Write(&b, le, uint16(len(p)))
		b.WriteString(p)
	}
	for _, r := range rows {
		for _, x := range r {
			_ = binary.Write(&b, le, math.Float32bits(x))
		}
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

func TestFloat32TableEmbedding(t *testing.T) {
	// Every character needs a piece of its own: the reference segmentation
	// gives a character no piece starts with score 0, which beats any piece.
	pieces := []string{"<unk>", "<s>", "</s>", "x1", "x2", "x3", "▁cat", "▁dog", "s", "▁", "c", "a", "t", "d", "o", "g"}
	scores := []float64{0, 0, 0, 0, 0, 0, -3, -3, -2, -1, -20, -20, -20, -20, -20, -20}
	rows := make([][]float32, len(pieces))
	for i := range rows {
		rows[i] = make([]float32, 3)
	}
	rows[6] = []float32{1, 0, 0}   // ▁cat
	rows[7] = []float32{0, 1, 0}   // ▁dog
	rows[8] = []float32{0, 0, 1}   // s
	rows[0] = []float32{0, 0, 0.5} // <unk>
	tab, err := ParseTable(encodeTable(pieces, scores, rows))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewWithTable(tab)
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 3 {
		t.Fatalf("Dim = %d", e.Dim())
	}
	vs, err := e.Embed(context.Background(), []embed.Input{{Text: "cats"}, {Text: "dog  cat"}, {Text: "🙂"}})
	if err != nil {
		t.Fatal(err)
	}
	r := float32(1 / math.Sqrt2)
	want := [][]float32{{r, 0, r}, {r, r, 0}, {0, 0, 1}}
	for i := range want {
		for j := range want[i] {
			if math.Abs(float64(vs[i][j]-want[i][j])) > 1e-6 {
				t.Errorf("vector %d = %v, want %v", i, vs[i], want[i])
				break
			}
		}
	}
}

// The ID and dimension an embedder reports before it decodes the built-in
// table (from the header and stored checksum) are those of the decoded
// table.
func TestPeekMatchesDecodedTable(t *testing.T) {
	e := New()
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	id, dim := e.ID(), e.Dim()
	tab, _, err := DefaultTable()
	if err != nil {
		t.Fatal(err)
	}
	if want := idFor(tab); id != want || dim != tab.Dim {
		t.Fatalf("before decoding: %s (%d-d), decoded: %s (%d-d)", id, dim, want, tab.Dim)
	}
	if err := e.Load(); err != nil || e.ID() != id || e.Dim() != dim {
		t.Fatalf("after Load: %s (%d-d), %v", e.ID(), e.Dim(), err)
	}
	if _, _, err := peekTable(tableFile[:20]); err == nil {
		t.Error("a truncated table passed the header check")
	}
}
