// Command dir2mcp-embed is the embed stage of the dir2mcp pipeline; see
// docs/pipeline.md and `dir2mcp-embed --help`.
package main

import "github.com/dir2mcp/dir2mcp/lib/cli"

func main() { cli.Exec(cli.Stage(cli.EmbedCommand(), "dir2mcp-embed")) }
