package vector

import "golang.org/x/sys/cpu"

// useAVX2 selects the assembly kernel.
var useAVX2 = cpu.X86.HasAVX2

// dotsI8AVX2 is dotsI8 for AVX2: rows·stride code bytes at codes, stride
// a positive multiple of 32, one int32 per row at out.
//
//go:noescape
func dotsI8AVX2(q *int16, codes *int8, stride, rows int, out *int32)
