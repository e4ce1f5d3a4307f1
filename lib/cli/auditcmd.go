package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/dir2mcp/dir2mcp/lib/audit"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/state"
	ucli "github.com/urfave/cli/v3"
)

func auditCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "audit",
		Usage: "print the audit log of tool calls (rotated files included), oldest first",
		Description: "Each line: time, token label, client, tool, duration, result size, outcome (ok or the error code), " +
			"masked credentials, and the arguments kept (credentials masked). --json prints the records as JSON lines.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "tool", Usage: "only calls of this `tool` (search or dir2mcp.search; resources/read)"},
			&ucli.StringFlag{Name: "since", Usage: "only calls since `WHEN`: a duration back (30m, 24h, 7d) or an RFC 3339 time or date"},
			&ucli.StringFlag{Name: "token", Usage: "only calls made with the token `NAME` (owner: the server's own token)"},
			&ucli.BoolFlag{Name: "errors", Usage: "only failed or refused calls"},
		},
		Action: runAudit,
	}
}

func runAudit(ctx context.Context, cmd *ucli.Command) error {
	e, err := setup(cmd, false)
	if err != nil {
		return err
	}
	f := audit.Filter{Tool: cmd.String("tool"), Token: cmd.String("token"), Errors: cmd.Bool("errors")}
	if s := cmd.String("since"); s != "" {
		if f.Since, err = parseWhen("--since", s, time.Now(), false); err != nil {
			return err
		}
	}
	w := e.stdout
	enc := json.NewEncoder(w)
	n := 0
	err = audit.Read(e.dir.Join(state.AuditLog), f, func(r audit.Record) error {
		n++
		if e.jsonOut {
			return enc.Encode(r)
		}
		_, err := fmt.Fprintln(w, formatRecord(r))
		return err
	})
	if err != nil {
		return errcode.Wrap(errcode.StoreCorrupt, err, "read the audit log: %v", err)
	}
	if n == 0 && !e.jsonOut && !cmd.Bool("quiet") {
		fmt.Fprintf(e.stderr, "No audit records match (log: %s).\n", e.dir.Join(state.AuditLog))
	}
	return nil
}

// formatRecord is one human line of the audit log.
func formatRecord(r audit.Record) string {
	who := r.Token
	if who == "" {
		who = "-"
	}
	client := r.Client
	if client == "" {
		client = "-"
	}
	outcome := "ok"
	if r.Error != "" {
		outcome = r.Error
	}
	line := fmt.Sprintf("%s  %-10s %-14s %-22s %8.1fms %7dB  %s", r.Time.Format(time.RFC3339), who, client, r.Tool, r.DurationMs, r.ResultBytes, outcome)
	if r.Redactions > 0 {
		line += fmt.Sprintf("  masked=%d", r.Redactions)
	}
	if len(r.Args) > 0 {
		b, _ := json.Marshal(r.Args)
		line += "  " + string(b)
	}
	return line
}

// parseWhen reads a point in time for a flag: a duration from now in
// seconds to weeks ("90s", "30m", "24h", "30d", "2w"; forward when after,
// else back), an RFC 3339 time or a date (UTC midnight).
func parseWhen(flag, s string, now time.Time, after bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	var n int
	var unit string
	if _, err := fmt.Sscanf(s, "%d%s", &n, &unit); err == nil && n > 0 {
		if d, ok := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour, "w": 7 * 24 * time.Hour}[unit]; ok {
			if !after {
				d = -d
			}
			return now.Add(time.Duration(n) * d), nil
		}
	}
	return time.Time{}, errcode.FieldError(errcode.ConfigInvalid, flag, "%s %q: want a duration like 30m, 24h, 30d or 2w, an RFC 3339 time or a date like 2026-03-01", flag, s)
}
