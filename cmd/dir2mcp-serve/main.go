// Command dir2mcp-serve is the serve stage of the dir2mcp pipeline; see
// docs/pipeline.md and `dir2mcp-serve --help`.
package main

import "github.com/dir2mcp/dir2mcp/lib/cli"

func main() { cli.Exec(cli.Stage(cli.ServeCommand(), "dir2mcp-serve")) }
