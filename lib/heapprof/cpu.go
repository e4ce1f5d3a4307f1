package heapprof

import (
	"os"
	"runtime/pprof"
)

// CPUEnvVar names the CPU profile file: with DIR2MCP_CPU_PROFILE=FILE set,
// FILE holds the CPU profile of the whole process, written when it exits.
const CPUEnvVar = "DIR2MCP_CPU_PROFILE"

// StartCPU begins CPU profiling when CPUEnvVar is set and returns the
// function to call at exit (it writes the profile). Without CPUEnvVar, or
// when the file cannot be created, stop does nothing.
func StartCPU() (stop func()) {
	path := os.Getenv(CPUEnvVar)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
