//go:build unix

package vector_test

import "syscall"

// cpuTime returns the process's user and system CPU time in nanoseconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}
