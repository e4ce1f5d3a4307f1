package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"golang.org/x/term"
)

// prompter asks the user for values on a terminal.
type prompter interface {
	// Secret reads a value without echoing it (SPEC §2.5, §17).
	Secret(label string) (string, error)
	// Line reads a visible value; an empty answer is def.
	Line(label, def string) (string, error)
}

// ttyPrompter prompts on the process's terminal: labels on out, answers
// read from in one byte at a time (so a secret read with echo off never
// loses input buffered by a visible read).
type ttyPrompter struct {
	in  *os.File
	out io.Writer
}

func (p ttyPrompter) Secret(label string) (string, error) {
	fmt.Fprint(p.out, label)
	b, err := term.ReadPassword(int(p.in.Fd()))
	fmt.Fprintln(p.out)
	if err != nil {
		return "", errcode.Wrap(errcode.ConfigInvalid, err, "reading %s: %v", strings.TrimSpace(label), err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (p ttyPrompter) Line(label, def string) (string, error) {
	fmt.Fprintf(p.out, "%s [%s]: ", label, def)
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := p.in.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			if errors.Is(err, io.EOF) && b.Len() > 0 {
				break
			}
			return "", errcode.Wrap(errcode.ConfigInvalid, err, "reading %s: %v", label, err)
		}
	}
	if v := strings.TrimSpace(b.String()); v != "" {
		return v, nil
	}
	return def, nil
}

// terminal reports whether stdin and stdout are a terminal and prompts are
// allowed (no --non-interactive).
func terminal(nonInteractive bool) bool {
	return !nonInteractive && term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}

// promptMissing asks for each missing credential with masked input and
// sets it for this session only (SPEC §2.5, §16.1.1). An empty answer
// gives up with the SPEC §3.3 error.
func promptMissing(p prompter, out io.Writer, cfg *config.Config, missing []config.Missing) error {
	fmt.Fprintln(out, "dir2mcp needs credentials for features this configuration enables:")
	byEnv := map[string][]config.Missing{}
	var order []string
	for _, m := range missing {
		if byEnv[m.EnvVar] == nil {
			order = append(order, m.EnvVar)
		}
		byEnv[m.EnvVar] = append(byEnv[m.EnvVar], m)
		fmt.Fprintf(out, "  %s: %s\n", m.EnvVar, m.Reason)
	}
	for _, env := range order {
		v, err := p.Secret(fmt.Sprintf("%s (input hidden; used for this session only): ", env))
		if err != nil {
			return err
		}
		if v == "" {
			return missingError(byEnv[env])
		}
		events.RegisterSecret(v)
		for _, m := range byEnv[env] {
			if err := cfg.SetSessionSecret(m.KeyPath, v); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(out, "To skip this prompt next time, set %s in the environment or run: dir2mcp config init\n", strings.Join(order, ", "))
	return nil
}

// missingError is the SPEC §3.3 non-interactive error for missing
// credentials (main prints it as "ERROR: CONFIG_INVALID: Missing ...").
func missingError(m []config.Missing) error {
	msg := strings.TrimPrefix(config.FormatMissing(m), "ERROR: "+string(errcode.ConfigInvalid)+": ")
	return &errcode.Error{Code: errcode.ConfigInvalid, Field: m[0].KeyPath, Message: msg}
}
