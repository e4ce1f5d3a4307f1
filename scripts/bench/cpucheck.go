package main

import (
	"slices"
	"time"
)

// cpuCheck times a fixed job on one core: sorting 1<<20 pseudo-random
// integers (8 MB, twice a core's L2 here), five times, and returns
// the median. The scale table prints it beside each corpus's searches, so
// that figures taken while a shared VM runs slow read as such: the same
// build's server CPU per call has moved by a third between runs.
func cpuCheck() time.Duration {
	const n = 1 << 20
	src := make([]uint64, n)
	x := uint64(88172645463325252)
	for i := range src { // xorshift64
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		src[i] = x
	}
	buf := make([]uint64, n)
	ds := make([]time.Duration, 5)
	for i := range ds {
		copy(buf, src)
		start := time.Now()
		slices.Sort(buf)
		ds[i] = time.Since(start)
	}
	med, _, _ := medianRange(ds)
	return med
}
