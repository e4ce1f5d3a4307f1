//go:build !amd64

package vector

const useAVX2 = false

func dotsI8AVX2(q *int16, codes *int8, stride, rows int, out *int32) {
	panic("unreachable")
}
