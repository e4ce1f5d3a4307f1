package mcphttp

import "runtime"

func runtimeGC() { runtime.GC(); runtime.GC() }

func heapInuse() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapInuse)
}
