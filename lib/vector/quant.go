package vector

import "math"

// Scalar quantization (format 2). Every stored vector v also has an int8
// code c and a per-vector scale s = max|v_i|/127 with c_i = round(v_i/s),
// so v ≈ s·c. A query is quantized the same way, and q·v ≈ s_q·s_v·(c_q·c_v)
// with an integer dot product over codes a quarter of the size of the
// floats. Codes only select candidates; every returned score is an exact
// float32 dot product (see Snapshot.Search).

// codeStride is the length of a code row: dim rounded up to a multiple of
// 32 (the kernel's step), zero padded.
func codeStride(dim int) int { return (dim + 31) &^ 31 }

// quantize writes v's code into c (len codeStride(len(v)), padding zeroed)
// and returns its scale; a zero vector has scale 0 and a zero code.
func quantize(v []float32, c []int8) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	clear(c)
	if m == 0 {
		return 0
	}
	inv := 127 / m
	for i, x := range v {
		c[i] = int8(math.Round(float64(x * inv)))
	}
	return m / 127
}

// quantizeQuery returns q's code widened to int16 (the kernel's query
// operand), padded to codeStride, and its scale.
func quantizeQuery(q []float32) ([]int16, float32) {
	c := make([]int8, codeStride(len(q)))
	s := quantize(q, c)
	w := make([]int16, len(c))
	for i, x := range c {
		w[i] = int16(x)
	}
	return w, s
}

// dotsI8 sets out[r] to the integer dot product of q with code row r of
// codes (rows of length len(q), a multiple of 32), for r < len(out).
func dotsI8(q []int16, codes []int8, out []int32) {
	if len(out) == 0 {
		return
	}
	stride := len(q)
	_ = codes[len(out)*stride-1]
	if useAVX2 {
		dotsI8AVX2(&q[0], &codes[0], stride, len(out), &out[0])
		return
	}
	dotsI8Go(q, codes, out)
}

// dotsI8Go is the portable dotsI8.
func dotsI8Go(q []int16, codes []int8, out []int32) {
	stride := len(q)
	for r := range out {
		row := codes[r*stride : (r+1)*stride]
		var a0, a1, a2, a3 int32
		for i := 0; i < stride; i += 4 {
			a0 += int32(q[i]) * int32(row[i])
			a1 += int32(q[i+1]) * int32(row[i+1])
			a2 += int32(q[i+2]) * int32(row[i+2])
			a3 += int32(q[i+3]) * int32(row[i+3])
		}
		out[r] = a0 + a1 + a2 + a3
	}
}
