package mcpserver

import (
	"testing"

	"github.com/dir2mcp/dir2mcp/lib/version"
)

// serverInfo.version is the build's version (set by the Makefile's -ldflags).
func TestServerInfoVersionIsTheBuildVersion(t *testing.T) {
	old := version.Version
	version.Version = "9.8.7-test"
	t.Cleanup(func() { version.Version = old })
	_, cs := newIndexedServer(t, map[string]string{"a.txt": "a\n"}, nil)
	if got := cs.InitializeResult().ServerInfo.Version; got != "9.8.7-test" {
		t.Fatalf("serverInfo.version = %q, want the build version", got)
	}
}
