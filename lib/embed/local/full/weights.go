package full

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

const weightsMagic = "D2MUSEF1"

// tensor is a dequantised weight: row-major data of the given shape.
type tensor struct {
	shape []int
	data  []float32
}

func errWeights(format string, args ...any) error {
	return errcode.New(errcode.ConfigInvalid, "local-full model weights: "+format, args...)
}

// parseWeights decodes a file written by scripts/distill/convert-full.js
// (format documented there) into float32 tensors, checking its SHA-256. It
// returns the tensors and the hex digest.
func parseWeights(b []byte) (map[string]*tensor, string, error) {
	if len(b) < 12+sha256.Size || string(b[:8]) != weightsMagic {
		return nil, "", errWeights("bad magic or too short")
	}
	body, sum := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	got := sha256.Sum256(body)
	if !bytes.Equal(got[:], sum) {
		return nil, "", errWeights("checksum mismatch (file corrupt)")
	}
	le := binary.LittleEndian
	n := int(le.Uint32(body[8:]))
	r := body[12:]
	take := func(k int) ([]byte, error) {
		if k < 0 || len(r) < k {
			return nil, errWeights("truncated")
		}
		out := r[:k]
		r = r[k:]
		return out, nil
	}
	out := make(map[string]*tensor, n)
	for range n {
		h, err := take(2)
		if err != nil {
			return nil, "", err
		}
		name, err := take(int(le.Uint16(h)))
		if err != nil {
			return nil, "", err
		}
		h, err = take(2)
		if err != nil {
			return nil, "", err
		}
		kind, rank := h[0], int(h[1])
		dims, err := take(4 * rank)
		if err != nil {
			return nil, "", err
		}
		t := &tensor{shape: make([]int, rank)}
		size := 1
		for i := range t.shape {
			t.shape[i] = int(le.Uint32(dims[4*i:]))
			size *= t.shape[i]
		}
		if size <= 0 || size > 1<<26 {
			return nil, "", errWeights("tensor %s has implausible size %d", name, size)
		}
		t.data = make([]float32, size)
		switch kind {
		case 0:
			v, err := take(4 * size)
			if err != nil {
				return nil, "", err
			}
			for i := range t.data {
				t.data[i] = math.Float32frombits(le.Uint32(v[4*i:]))
			}
		case 1, 2:
			if rank != 2 {
				return nil, "", errWeights("int8 tensor %s has rank %d", name, rank)
			}
			rows, cols := t.shape[0], t.shape[1]
			ns := cols
			if kind == 2 {
				ns = rows
			}
			sv, err := take(4 * ns)
			if err != nil {
				return nil, "", err
			}
			q, err := take(size)
			if err != nil {
				return nil, "", err
			}
			for i := range rows {
				for j := range cols {
					k := j
					if kind == 2 {
						k = i
					}
					s := math.Float32frombits(le.Uint32(sv[4*k:]))
					t.data[i*cols+j] = s * float32(int8(q[i*cols+j]))
				}
			}
		case 3:
			v, err := take(2 * size)
			if err != nil {
				return nil, "", err
			}
			for i := range t.data {
				t.data[i] = halfToFloat(le.Uint16(v[2*i:]))
			}
		default:
			return nil, "", errWeights("tensor %s has unknown kind %d", name, kind)
		}
		out[string(name)] = t
	}
	if len(r) != 0 {
		return nil, "", errWeights("%d trailing bytes", len(r))
	}
	return out, hex.EncodeToString(got[:]), nil
}

// halfToFloat converts IEEE 754 binary16 bits to float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: normalise the mantissa.
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}
