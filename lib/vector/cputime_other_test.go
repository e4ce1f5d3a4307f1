//go:build !unix

package vector_test

// cpuTime is not measured on this platform.
func cpuTime() float64 { return 0 }
