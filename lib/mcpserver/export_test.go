package mcpserver

import (
	"context"

	"github.com/dir2mcp/dir2mcp/lib/retrieve"
)

// For the benchmarks of the external test package (search_http_bench_test.go).
var (
	BenchServer  = benchServer
	BenchQueries = benchQueries
	BenchRun     = run
	Precomputed  = precomputed
)

// SetSearchFunc makes s answer searches with f (nil: the engine).
func (s *Server) SetSearchFunc(f func(context.Context, retrieve.Request) (retrieve.Result, error)) {
	s.searchFunc = f
}
