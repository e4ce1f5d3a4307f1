package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	ucli "github.com/urfave/cli/v3"
)

func configCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "config",
		Usage: "show or create the configuration, or print an MCP client config",
		Commands: []*ucli.Command{
			configClientCommand(),
			{
				Name:  "print",
				Usage: "print the effective config (defaults + file + env + flags); secrets shown only by source",
				Flags: []ucli.Flag{
					&ucli.StringFlag{Name: "format", Value: "yaml", Usage: "yaml | json"},
				},
				Action: func(ctx context.Context, cmd *ucli.Command) error {
					e, err := setup(cmd, false)
					if err != nil {
						return err
					}
					format := cmd.String("format")
					if e.jsonOut {
						format = "json"
					}
					return e.cfg.Print(e.stdout, e.src, format)
				},
			},
			{
				Name:  "init",
				Usage: "set up .dir2mcp.yaml: a wizard on a terminal (providers, masked API keys), else a commented template with every default",
				Flags: []ucli.Flag{
					&ucli.BoolFlag{Name: "force", Usage: "overwrite an existing file"},
				},
				Action: func(ctx context.Context, cmd *ucli.Command) error {
					dir := cmd.String("dir")
					path := cmd.String("config")
					if path == "" {
						path = filepath.Join(dir, config.DefaultFileName)
					}
					if _, err := os.Stat(path); err == nil && !cmd.Bool("force") {
						return errcode.New(errcode.ConfigInvalid, "%s already exists (use --force to overwrite)", path)
					}
					if terminal(cmd.Bool("non-interactive")) {
						w := &wizard{p: ttyPrompter{in: os.Stdin, out: cmd.Root().Writer}, out: cmd.Root().Writer, root: dir, cfgPath: path}
						return w.run()
					}
					if err := atomicfile.Write(path, []byte(config.ExampleYAML()), 0o644); err != nil {
						return errcode.Wrap(errcode.ConfigInvalid, err, "write %s: %v", path, err)
					}
					events.NewHuman(cmd.Root().Writer, cmd.Root().ErrWriter, cmd.Bool("quiet")).Printf("Wrote %s (API keys are referenced as ${ENV_VARS}, never stored in it).\n", path)
					return nil
				},
			},
		},
	}
}
