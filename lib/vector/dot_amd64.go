package vector

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly kernels.
var useAVX2 = cpu.X86.HasAVX2

// dotsI8AVX2 is dotsI8 for AVX2: rows·stride code bytes at codes, stride
// a positive multiple of 32, one int32 per row at out.
//
//go:noescape
func dotsI8AVX2(q *int16, codes *int8, stride, rows int, out *int32)

// scanBitsAVX2 is scanBits for AVX2: nblocks code blocks of nbytes-byte
// codes (nbytes even) at codes, their factors at fac, the query's tables
// at lut and {2Δ, S, 2lo} at par.
//
//go:noescape
func scanBitsAVX2(codes *byte, fac *float32, lut *byte, nbytes, nblocks int, par *[2]float32, bar float32, est *float32, masks *uint32)

// prefetch asks for the n bytes at p to be brought into the cache; it
// never faults.
//
//go:noescape
func prefetch(p unsafe.Pointer, n int)

// fwhtRoundAVX2 is one round of the rotation on x[:n] (n a power of two
// ≥ 16): flip the signs where flip has the sign bit, then transform.
//
//go:noescape
func fwhtRoundAVX2(x *float32, flip *uint32, n int)
