package cli

import (
	ucli "github.com/urfave/cli/v3"
)

// stdioMode reports whether cmd serves MCP over stdin/stdout (--stdio):
// then stdout carries only JSON-RPC, so events and human output go to
// stderr.
func stdioMode(cmd *ucli.Command) bool {
	return hasFlag(cmd, "stdio") && cmd.Bool("stdio")
}

// setupServer resolves the environment of a serving command; with --stdio
// everything the command would print goes to stderr.
func setupServer(cmd *ucli.Command) (*env, error) {
	stdio := stdioMode(cmd)
	e, err := setup(cmd, stdio)
	if err != nil {
		return nil, err
	}
	if stdio {
		e.stdout = e.stderr
	}
	return e, nil
}
