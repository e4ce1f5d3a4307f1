// Package version holds the dir2mcp release version.
package version

// Version is the dir2mcp release version: `dir2mcp version` prints it, and
// the MCP server reports it as serverInfo.version and on GET /health. The
// Makefile sets it at build time (-ldflags "-X
// github.com/dir2mcp/dir2mcp/lib/version.Version=..."), from VERSION or the
// latest v* git tag; a build without either keeps this default.
var Version = "0.4.0"
