package cli

import (
	"context"
	"fmt"
	"runtime"

	ucli "github.com/urfave/cli/v3"
)

// App is the `dir2mcp` command with every subcommand.
func App() *ucli.Command {
	ucli.VersionPrinter = printVersion
	return &ucli.Command{
		Name:    "dir2mcp",
		Version: versionString(),
		Usage:   "turn a directory into an MCP retrieval server",
		Description: "Run `dir2mcp up` in any directory: an MCP server starts at once and the directory is indexed " +
			"in the background, offline, with no API key. Agents then call dir2mcp.search, ask, open_file, list_files and stats (plus transcribe, annotate, transcribe_and_ask and ask_audio with a provider), read files as resources and use the prompts.",
		Flags:           globalFlags(),
		HideHelpCommand: true,
		Commands: []*ucli.Command{
			upCommand(), statusCommand(), askCommand(), indexCommand(), reindexCommand(), diffCommand(), auditCommand(),
			tokenCommand(), configCommand(), versionCommand(),
			ScanCommand(), ExtractCommand(), EmbedCommand(), ServeCommand(),
		},
	}
}

// Stage wraps a stage command as a standalone binary's root command
// (dir2mcp-scan and friends), with the global flags.
func Stage(c *ucli.Command, name string) *ucli.Command {
	ucli.VersionPrinter = printVersion
	c.Name = name
	c.Version = versionString()
	c.Flags = append(globalFlags(), c.Flags...)
	c.HideHelpCommand = true
	return c
}

func versionCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "version",
		Usage: "print version information",
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			printVersion(cmd)
			return nil
		},
	}
}

// printVersion prints the version line of `version` and `--version`.
func printVersion(cmd *ucli.Command) {
	fmt.Fprintf(cmd.Root().Writer, "%s %s/%s %s\n", versionString(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
