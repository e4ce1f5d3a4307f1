package full

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// maxTokens is the model's input limit; later tokens are dropped, as the
// TF.js graph does (ClipToMaxLength).
const maxTokens = 128

const (
	heads   = 4
	lnEps   = 1e-6
	l2Eps   = 1e-12
	outDim  = 512
	ffnDim  = 1536
	embDim  = 256
	nLayers = 2
)

// layer is one transformer layer with pre-layer-norm residual blocks.
type layer struct {
	in           int // input width (256 for layer 0, 512 for layer 1)
	scale        float32
	ln1g, ln1b   []float32
	qkvW, qkvB   []float32 // in × 3·in
	outW, outB   []float32 // in × 512
	resW, resB   []float32 // layer 0 only: 256 × 512 projection of the residual
	ln2g, ln2b   []float32
	ffn1W, ffn1B []float32 // 512 × 1536
	ffn2W, ffn2B []float32 // 1536 × 512
}

// model is Universal Sentence Encoder Lite: token embeddings plus a
// sinusoidal timing signal, two transformer layers (4 heads each), mean
// pooling, a tanh dense layer and L2 normalisation.
type model struct {
	emb   []float32 // vocab × 256
	vocab int
	inv   []float32 // 128 inverse timescales
	tanhW []float32 // 512 × 512
	tanhB []float32
	specs [nLayers]layer
}

func newModel(w map[string]*tensor) (*model, error) {
	get := func(name string, shape ...int) ([]float32, error) {
		t, ok := w[name]
		if !ok {
			return nil, errWeights("tensor %s missing", name)
		}
		size := 1
		for _, d := range shape {
			size *= d
		}
		if len(t.data) != size {
			return nil, errWeights("tensor %s has %d values, want %v", name, len(t.data), shape)
		}
		return t.data, nil
	}
	m := &model{}
	var err error
	must := func(dst *[]float32, name string, shape ...int) {
		if err == nil {
			*dst, err = get(name, shape...)
		}
	}
	et, ok := w["embeddings"]
	if !ok || len(et.shape) != 2 || et.shape[1] != embDim {
		return nil, errWeights("embeddings missing or not ×%d", embDim)
	}
	m.vocab = et.shape[0]
	m.emb = et.data
	must(&m.inv, "inv_timescales", embDim/2)
	must(&m.tanhW, "tanh_w", outDim, outDim)
	must(&m.tanhB, "tanh_b", outDim)
	for i := range m.specs {
		l := &m.specs[i]
		l.in = outDim
		if i == 0 {
			l.in = embDim
			must(&l.resW, "l0_dense_w", embDim, outDim)
			must(&l.resB, "l0_dense_b", outDim)
		}
		l.scale = float32(1 / math.Sqrt(float64(l.in/heads)))
		p := "l" + string(rune('0'+i)) + "_"
		must(&l.ln1g, p+"ln1_g", l.in)
		must(&l.ln1b, p+"ln1_b", l.in)
		must(&l.qkvW, p+"qkv_w", l.in, 3*l.in)
		must(&l.qkvB, p+"qkv_b", 3*l.in)
		must(&l.outW, p+"out_w", l.in, outDim)
		must(&l.outB, p+"out_b", outDim)
		must(&l.ln2g, p+"ln2_g", outDim)
		must(&l.ln2b, p+"ln2_b", outDim)
		must(&l.ffn1W, p+"ffn1_w", outDim, ffnDim)
		must(&l.ffn1B, p+"ffn1_b", ffnDim)
		must(&l.ffn2W, p+"ffn2_w", ffnDim, outDim)
		must(&l.ffn2B, p+"ffn2_b", outDim)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// forward returns the L2-normalised 512-d embedding of a token sequence
// (the zero vector for no tokens). Ids outside the vocabulary are invalid
// input and must be filtered by the caller.
func (m *model) forward(ids []int32) []float32 {
	out := make([]float32, outDim)
	n := min(len(ids), maxTokens)
	if n == 0 {
		return out
	}
	// Input: the graph adds the embedding twice (once inside its timing
	// layer's residual) plus the sinusoidal timing signal.
	x := make([]float32, n*embDim)
	half := embDim / 2
	for t := range n {
		row := x[t*embDim : (t+1)*embDim]
		e := m.emb[int(ids[t])*embDim : (int(ids[t])+1)*embDim]
		for j := range half {
			a := float64(float32(t) * m.inv[j])
			row[j] = 2*e[j] + float32(math.Sin(a))
			row[half+j] = 2*e[half+j] + float32(math.Cos(a))
		}
	}
	for i := range m.specs {
		x = m.specs[i].apply(x, n)
	}
	pooled := make([]float32, outDim)
	for t := range n {
		vek32.Add_Inplace(pooled, x[t*outDim:(t+1)*outDim])
	}
	vek32.MulNumber_Inplace(pooled, 1/float32(n))
	vek32.MatMul_Into(out, pooled, m.tanhW, outDim)
	var ss float64
	for j := range out {
		v := float32(math.Tanh(float64(out[j] + m.tanhB[j])))
		out[j] = v
		ss += float64(v) * float64(v)
	}
	inv := float32(1 / math.Sqrt(math.Max(ss, l2Eps)))
	vek32.MulNumber_Inplace(out, inv)
	return out
}

// apply runs the layer on n rows of width l.in and returns n rows of 512.
func (l *layer) apply(x []float32, n int) []float32 {
	d := l.in
	h := layerNorm(make([]float32, n*d), x, n, d, l.ln1g, l.ln1b)
	qkv := matMulBias(h, n, d, l.qkvW, 3*d, l.qkvB)
	depth := d / heads
	o := make([]float32, n*d)
	scores := make([]float32, n)
	for hd := range heads {
		qo, ko, vo := hd*depth, d+hd*depth, 2*d+hd*depth
		for i := range n {
			q := qkv[i*3*d+qo : i*3*d+qo+depth]
			maxS := float32(math.Inf(-1))
			for j := range n {
				s := vek32.Dot(q, qkv[j*3*d+ko:j*3*d+ko+depth]) * l.scale
				scores[j] = s
				maxS = max(maxS, s)
			}
			var sum float32
			for j := range n {
				scores[j] = float32(math.Exp(float64(scores[j] - maxS)))
				sum += scores[j]
			}
			dst := o[i*d+hd*depth : i*d+hd*depth+depth]
			for j := range n {
				w := scores[j] / sum
				v := qkv[j*3*d+vo : j*3*d+vo+depth]
				for k := range dst {
					dst[k] += w * v[k]
				}
			}
		}
	}
	y := matMulBias(o, n, d, l.outW, outDim, l.outB)
	if l.resW != nil {
		vek32.Add_Inplace(y, matMulBias(x, n, d, l.resW, outDim, l.resB))
	} else {
		vek32.Add_Inplace(y, x)
	}
	h2 := layerNorm(make([]float32, n*outDim), y, n, outDim, l.ln2g, l.ln2b)
	f := matMulBias(h2, n, outDim, l.ffn1W, ffnDim, l.ffn1B)
	for i, v := range f {
		if v < 0 {
			f[i] = 0
		}
	}
	vek32.Add_Inplace(y, matMulBias(f, n, ffnDim, l.ffn2W, outDim, l.ffn2B))
	return y
}

// matMulBias returns x (n×k) · w (k×p) + b.
func matMulBias(x []float32, n, k int, w []float32, p int, b []float32) []float32 {
	out := make([]float32, n*p)
	vek32.MatMul_Into(out, x, w, k)
	for i := range n {
		vek32.Add_Inplace(out[i*p:(i+1)*p], b)
	}
	return out
}

// layerNorm writes the per-row layer norm of x (n×d) with gain g and bias b
// into dst and returns it.
func layerNorm(dst, x []float32, n, d int, g, b []float32) []float32 {
	for i := range n {
		row := x[i*d : (i+1)*d]
		var mean float32
		for _, v := range row {
			mean += v
		}
		mean /= float32(d)
		var vs float32
		for _, v := range row {
			vs += (v - mean) * (v - mean)
		}
		r := float32(1 / math.Sqrt(float64(vs/float32(d)+lnEps)))
		out := dst[i*d : (i+1)*d]
		for j, v := range row {
			out[j] = g[j]*r*(v-mean) + b[j]
		}
	}
	return dst
}
