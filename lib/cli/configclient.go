package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	ucli "github.com/urfave/cli/v3"
)

// clientFormats names the MCP clients `config client` knows, with where
// their config lives.
var clientFormats = map[string]string{
	"claude-desktop": "claude_desktop_config.json (Settings → Developer → Edit Config), under \"mcpServers\"",
	"claude-code":    ".mcp.json in the project (or `claude mcp add-json dir2mcp '<the inner object>'`)",
	"cursor":         ".cursor/mcp.json in the project or ~/.cursor/mcp.json",
	"vscode":         ".vscode/mcp.json in the workspace",
}

func configClientCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "client",
		Usage:     "print a ready-to-paste MCP client config: claude-desktop | claude-code | cursor | vscode",
		ArgsUsage: "CLIENT",
		Description: "stdio (default): the client launches `dir2mcp up --stdio` on this directory. http: the client connects to a " +
			"server at a fixed port (--url, --listen, server.listen, or the running server's port) with the bearer token taken from " +
			"an environment variable or a prompt — the token itself is never printed. When the port would be random, it is " +
			"pinned: server.listen is written into the config file (said on stderr), so the URL still works after a restart.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "transport", Value: "stdio", Usage: "stdio | http"},
			&ucli.StringFlag{Name: "url", Usage: "MCP endpoint `URL` for --transport http (default: from connection.json or --listen)"},
			&ucli.StringFlag{Name: "listen", Usage: "the `host:port` the server listens on (for the http URL)"},
			&ucli.StringFlag{Name: "name", Value: "dir2mcp", Usage: "server `name` in the client config"},
			&ucli.BoolFlag{Name: "pin", Value: true, Usage: "for --transport http with a random port: write server.listen into the config file so the URL survives a restart (--pin=false: only say what to add)"},
		},
		Action: runConfigClient,
	}
}

func runConfigClient(ctx context.Context, cmd *ucli.Command) error {
	client := cmd.Args().First()
	if _, ok := clientFormats[client]; !ok {
		return errcode.FieldError(errcode.ConfigInvalid, "CLIENT", "unknown client %q; want one of claude-desktop, claude-code, cursor, vscode", client)
	}
	e, err := setup(cmd, false)
	if err != nil {
		return err
	}
	name := cmd.String("name")
	var entry map[string]any
	var notes []string
	switch t := cmd.String("transport"); t {
	case "stdio":
		entry, err = stdioEntry(e, client)
	case "http":
		entry, notes, err = httpEntry(e, cmd, client)
	default:
		return errcode.FieldError(errcode.ConfigInvalid, "--transport", "--transport must be stdio or http; got %q", t)
	}
	if err != nil {
		return err
	}
	doc := map[string]any{"mcpServers": map[string]any{name: entry}}
	if client == "vscode" {
		doc = map[string]any{"servers": map[string]any{name: entry}}
		if inputs, ok := entry["_inputs"]; ok {
			delete(entry, "_inputs")
			doc["inputs"] = inputs
		}
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "Paste into %s.\n", clientFormats[client])
	for _, n := range notes {
		fmt.Fprintln(e.stderr, n)
	}
	return nil
}

// stdioEntry launches `dir2mcp up --stdio` on the root.
func stdioEntry(e *env, client string) (map[string]any, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = "dir2mcp"
	} else if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	args := []string{"up", "--stdio", "--dir", e.root.Dir(), "--non-interactive"}
	if cfg := e.cmd.String("config"); cfg != "" {
		if abs, err := filepath.Abs(cfg); err == nil {
			args = append(args, "--config", abs)
		}
	}
	entry := map[string]any{"command": exe, "args": args}
	if client == "claude-code" || client == "vscode" {
		entry["type"] = "stdio"
	}
	return entry, nil
}

// httpEntry connects to a running server with a bearer header that the
// client fills from an environment variable (or, in VS Code, a masked
// prompt).
func httpEntry(e *env, cmd *ucli.Command, client string) (map[string]any, []string, error) {
	url, pinNotes, err := endpointURL(e, cmd)
	if err != nil {
		return nil, nil, err
	}
	defer func() { fmt.Fprint(e.stderr, pinNotes) }()
	tokenEnv := e.cfg.Security.Auth.TokenEnv
	if tokenEnv == "" {
		tokenEnv = "DIR2MCP_AUTH_TOKEN"
	}
	auth := e.cfg.Security.Auth.Mode != "none"
	where := "the token file named in connection.json (" + e.dir.Join("secret.token") + " by default)"
	notes := []string{}
	if auth {
		notes = append(notes, fmt.Sprintf("Set %s to the bearer token (from %s) in the environment the client starts from.", tokenEnv, where))
	}
	var entry map[string]any
	switch client {
	case "claude-desktop":
		// Claude Desktop's config launches local processes only: bridge
		// with mcp-remote, which sends the header.
		args := []string{"-y", "mcp-remote", url}
		env := map[string]any{}
		if auth {
			args = append(args, "--header", "Authorization:${AUTH_HEADER}")
			env["AUTH_HEADER"] = "Bearer <token>"
			notes = []string{fmt.Sprintf("Replace <token> with the bearer token from %s (the config file then holds a secret: keep it private).", where)}
		}
		entry = map[string]any{"command": "npx", "args": args}
		if len(env) > 0 {
			entry["env"] = env
		}
	case "claude-code":
		entry = map[string]any{"type": "http", "url": url}
		if auth {
			entry["headers"] = map[string]any{"Authorization": "Bearer ${" + tokenEnv + "}"}
		}
	case "cursor":
		entry = map[string]any{"url": url}
		if auth {
			entry["headers"] = map[string]any{"Authorization": "Bearer ${env:" + tokenEnv + "}"}
		}
	case "vscode":
		entry = map[string]any{"type": "http", "url": url}
		if auth {
			entry["headers"] = map[string]any{"Authorization": "Bearer ${input:dir2mcp-token}"}
			entry["_inputs"] = []any{map[string]any{"type": "promptString", "id": "dir2mcp-token",
				"description": "dir2mcp bearer token (" + where + ")", "password": true}}
			notes = []string{"VS Code asks for the token once (masked) and stores it securely; it is in " + where + "."}
		}
	}
	return entry, notes, nil
}
