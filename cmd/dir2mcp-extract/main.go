// Command dir2mcp-extract is the extract stage of the dir2mcp pipeline; see
// docs/pipeline.md and `dir2mcp-extract --help`.
package main

import "github.com/dir2mcp/dir2mcp/lib/cli"

func main() { cli.Exec(cli.Stage(cli.ExtractCommand(), "dir2mcp-extract")) }
