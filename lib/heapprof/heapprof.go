// Package heapprof writes Go heap (and CPU) profiles of a running dir2mcp for the
// scale bench (scripts/bench -heap-profile): with DIR2MCP_HEAP_PROFILE=FILE
// set, FILE holds the heap profile of the GC that found the largest live
// heap so far (written again at each new peak at least 10% above the last), and
// FILE.exit the profile after a final GC when the process exits. Without
// the variable nothing runs.
package heapprof

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// EnvVar names the profile file.
const EnvVar = "DIR2MCP_HEAP_PROFILE"

// CPUEnvVar names a file that receives a CPU profile of the whole process
// (written when it exits), for profiling a server under load.
const CPUEnvVar = "DIR2MCP_CPU_PROFILE"

// heapMetric is the live heap as of the last GC: the moment the heap
// profile describes too.
const heapMetric = "/gc/heap/live:bytes"

// Start begins profiling when EnvVar is set and returns the function to
// call at exit (it writes FILE.exit). Without EnvVar, stop does nothing.
func Start() (stop func()) {
	stopCPU := startCPU()
	path := os.Getenv(EnvVar)
	if path == "" {
		return stopCPU
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: heapMetric}}
		var written uint64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > written+written/10 {
				written = v
				write(path)
			}
		}
	}()
	return func() {
		stopCPU()
		close(done)
		wg.Wait()
		runtime.GC()
		write(path + ".exit")
	}
}

// startCPU starts the CPU profile CPUEnvVar names, if any, and returns the
// function that ends it.
func startCPU() (stop func()) {
	path := os.Getenv(CPUEnvVar)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// write stores the heap profile (as of the last GC) in path, through a
// temporary file so a reader never sees half a profile.
func write(path string) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return
	}
	err = pprof.Lookup("heap").WriteTo(f, 0)
	if cerr := f.Close(); err == nil && cerr == nil {
		os.Rename(path+".tmp", path)
	}
}
