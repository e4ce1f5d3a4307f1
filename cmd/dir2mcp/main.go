// Command dir2mcp is the user CLI: up, status, ask, reindex, config, version,
// and the pipeline stages as subcommands.
package main

import "github.com/dir2mcp/dir2mcp/lib/cli"

func main() { cli.Exec(cli.App()) }
