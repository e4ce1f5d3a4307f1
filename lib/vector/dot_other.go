//go:build !amd64

package vector

import "unsafe"

var useAVX2 = false

func dotsI8AVX2(q *int16, codes *int8, stride, rows int, out *int32) {
	panic("unreachable")
}

func scanBitsAVX2(codes *byte, fac *float32, lut *byte, nbytes, nblocks int, par *[2]float32, bar float32, est *float32, masks *uint32) {
	panic("unreachable")
}

func prefetch(p unsafe.Pointer, n int) {}

func fwhtRoundAVX2(x *float32, flip *uint32, n int) { panic("unreachable") }
