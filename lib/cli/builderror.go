package cli

import (
	"github.com/dir2mcp/dir2mcp/lib/errcode"
)

// installCommand is the one build command that gives a working binary.
const installCommand = "go install -tags sqlite_fts5 github.com/dir2mcp/dir2mcp/cmd/dir2mcp@latest"

// buildError is the BUILD_UNSUPPORTED error of a binary built without
// `-tags sqlite_fts5`, or nil for a complete build. Every command checks it
// before doing anything, so such a binary never creates or touches an index.
func buildError() error {
	if builtWithFTS5 {
		return nil
	}
	return errcode.New(errcode.BuildUnsupported, "this binary was built without -tags sqlite_fts5 (SQLite full-text search); build with: %s", installCommand)
}
