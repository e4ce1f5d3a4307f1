// Command dir2mcp-scan is the scan stage of the dir2mcp pipeline; see
// docs/pipeline.md and `dir2mcp-scan --help`.
package main

import "github.com/dir2mcp/dir2mcp/lib/cli"

func main() { cli.Exec(cli.Stage(cli.ScanCommand(), "dir2mcp-scan")) }
