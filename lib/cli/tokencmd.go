package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/mcpserver"
	"github.com/dir2mcp/dir2mcp/lib/tokens"
	ucli "github.com/urfave/cli/v3"
)

func tokenCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "token",
		Usage: "manage scoped bearer tokens (tools, paths, expiry) for the HTTP server",
		Description: "Tokens live in <state dir>/tokens.json (mode 0600), stored as SHA-256 hashes: a token is shown once, " +
			"by `token add`. A running server applies changes from the next request. The server's own token " +
			"(secret.token) keeps full access.",
		Commands: []*ucli.Command{
			{
				Name:      "add",
				Usage:     "create a token and print it (once)",
				UsageText: "dir2mcp token add NAME [--tools search,open_file] [--paths docs/,README.md] [--expires 30d]",
				Flags: []ucli.Flag{
					&ucli.StringFlag{Name: "tools", Usage: "comma-separated `tools` the token may call (default: all)"},
					&ucli.StringFlag{Name: "paths", Usage: "comma-separated rel_path `prefixes` it may read and see (default: all)"},
					&ucli.StringFlag{Name: "expires", Usage: "expiry: a duration (30d, 2w, 12h), an RFC 3339 time or a date"},
				},
				Action: runTokenAdd,
			},
			{Name: "list", Usage: "list tokens: name, state, scope, expiry, created, last used (never a token)", Action: runTokenList},
			{Name: "revoke", Usage: "revoke a token", UsageText: "dir2mcp token revoke NAME", Action: runTokenRevoke},
		},
	}
}

// tokenArg returns the NAME argument of a token subcommand.
func tokenArg(cmd *ucli.Command) (string, error) {
	if cmd.Args().Len() != 1 {
		return "", errcode.FieldError(errcode.MissingField, "NAME", "want exactly one token name: %s", cmd.UsageText)
	}
	return cmd.Args().First(), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runTokenAdd(ctx context.Context, cmd *ucli.Command) error {
	name, err := tokenArg(cmd)
	if err != nil {
		return err
	}
	e, err := setup(cmd, false)
	if err != nil {
		return err
	}
	tools, err := mcpserver.ResolveTools("--tools", splitList(cmd.String("tools")))
	if err != nil {
		return err
	}
	paths, err := tokens.CleanPaths(splitList(cmd.String("paths")))
	if err != nil {
		return err
	}
	now := time.Now()
	var expires time.Time
	if s := cmd.String("expires"); s != "" {
		if expires, err = parseWhen("--expires", s, now, true); err != nil {
			return err
		}
	}
	if err := e.dir.Ensure(); err != nil {
		return err
	}
	secret, t, err := tokens.Add(e.dir.Join(tokens.FileName), name, tools, paths, expires, now)
	if err != nil {
		return err
	}
	if e.jsonOut {
		return json.NewEncoder(e.stdout).Encode(map[string]any{"name": t.Label, "token": secret, "tools": t.Tools,
			"paths": t.Paths, "expires": t.Expires, "created": t.Created})
	}
	fmt.Fprintln(e.stdout, secret)
	fmt.Fprintf(e.stderr, "Token %q created (%s). It is shown this once: only its hash is stored. Clients send it as\n  Authorization: Bearer <token>\n", t.Label, scopeText(t))
	return nil
}

func scopeText(t tokens.Token) string {
	tools, paths, exp := "all tools", "all paths", "no expiry"
	if len(t.Tools) > 0 {
		tools = strings.Join(t.Tools, ",")
	}
	if len(t.Paths) > 0 {
		paths = strings.Join(t.Paths, ",")
	}
	if !t.Expires.IsZero() {
		exp = "expires " + t.Expires.Format(time.RFC3339)
	}
	return tools + "; " + paths + "; " + exp
}

func runTokenList(ctx context.Context, cmd *ucli.Command) error {
	e, err := setup(cmd, false)
	if err != nil {
		return err
	}
	list, err := tokens.List(e.dir.Join(tokens.FileName))
	if err != nil {
		return err
	}
	used := tokens.ReadUsage(e.dir.Join(tokens.UsageName))
	now := time.Now()
	type row struct {
		Name     string    `json:"name"`
		State    string    `json:"state"`
		Tools    []string  `json:"tools"`
		Paths    []string  `json:"paths"`
		Expires  time.Time `json:"expires,omitzero"`
		Created  time.Time `json:"created"`
		Revoked  time.Time `json:"revoked,omitzero"`
		LastUsed time.Time `json:"last_used,omitzero"`
	}
	rows := make([]row, 0, len(list))
	for _, t := range list {
		rows = append(rows, row{t.Label, t.State(now), t.Tools, t.Paths, t.Expires, t.Created, t.Revoked, used[t.Label]})
	}
	if e.jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "No scoped tokens (add one with dir2mcp token add NAME). The server's own token has full access.")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tTOOLS\tPATHS\tEXPIRES\tCREATED\tLAST USED")
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Local().Format("2006-01-02 15:04")
	}
	orAll := func(l []string) string {
		if len(l) == 0 {
			return "all"
		}
		return strings.Join(l, ",")
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.State, orAll(r.Tools), orAll(r.Paths), at(r.Expires), at(r.Created), at(r.LastUsed))
	}
	return tw.Flush()
}

func runTokenRevoke(ctx context.Context, cmd *ucli.Command) error {
	name, err := tokenArg(cmd)
	if err != nil {
		return err
	}
	e, err := setup(cmd, false)
	if err != nil {
		return err
	}
	if err := tokens.Revoke(e.dir.Join(tokens.FileName), name, time.Now()); err != nil {
		return err
	}
	if !cmd.Bool("quiet") {
		fmt.Fprintf(e.stderr, "Token %q revoked; a running server refuses it from its next request.\n", name)
	}
	return nil
}
