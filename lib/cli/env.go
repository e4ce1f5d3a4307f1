// Package cli implements the dir2mcp command line: the user CLI (up, status,
// ask, reindex, config, version) and the pipeline stages (scan, extract,
// embed, serve), which the dir2mcp-* binaries expose as top-level commands.
package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/dir2mcp/dir2mcp/lib/heapprof"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/events"
	"github.com/dir2mcp/dir2mcp/lib/models"
	"github.com/dir2mcp/dir2mcp/lib/postings"
	"github.com/dir2mcp/dir2mcp/lib/record"
	"github.com/dir2mcp/dir2mcp/lib/rootfs"
	"github.com/dir2mcp/dir2mcp/lib/state"
	"github.com/dir2mcp/dir2mcp/lib/store"
	ucli "github.com/urfave/cli/v3"
	"golang.org/x/term"
)

// Global flags (SPEC §2.2).
func globalFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "dir", Value: ".", Usage: "root `directory` to index and serve"},
		&ucli.StringFlag{Name: "config", Usage: "config `file` (default <dir>/.dir2mcp.yaml)"},
		&ucli.StringFlag{Name: "state-dir", Usage: "state `directory` (default <dir>/.dir2mcp)"},
		&ucli.BoolFlag{Name: "json", Usage: "emit NDJSON events (SPEC §3.2) instead of human output"},
		&ucli.BoolFlag{Name: "non-interactive", Usage: "never prompt; fail with instructions when config is missing"},
		&ucli.BoolFlag{Name: "quiet", Usage: "print only warnings and errors"},
	}
}

// env is what every command resolves first: root, config, state dir, output.
type env struct {
	cmd     *ucli.Command
	root    *rootfs.Root
	cfg     *config.Config
	src     *config.Sources
	dir     state.Dir
	stdout  io.Writer
	stderr  io.Writer
	ev      *events.Emitter // progress/lifecycle events
	jsonOut bool
	models  *models.Set // see providers
	// replica reports a serve --from replica's position (nil otherwise).
	replica func() any
}

// flagKeys maps command-line flags to config key paths (flags > env > file).
var flagKeys = map[string]string{
	"listen":                 "server.listen",
	"mcp-path":               "server.mcp_path",
	"tls-cert":               "server.tls.cert_file",
	"tls-key":                "server.tls.key_file",
	"x402":                   "x402.mode",
	"x402-facilitator-url":   "x402.facilitator_url",
	"x402-resource-base-url": "x402.resource_base_url",
	"x402-network":           "x402.route_policy.tools_call.network",
	"x402-price":             "x402.route_policy.tools_call.price",
	"tools":                  "server.tools",
}

// setup resolves the environment. eventsToStderr sends events to stderr
// (stage commands, whose stdout carries records).
func setup(cmd *ucli.Command, eventsToStderr bool) (*env, error) {
	e := &env{cmd: cmd, stdout: cmd.Root().Writer, stderr: cmd.Root().ErrWriter, jsonOut: cmd.Bool("json")}
	if e.stdout == nil {
		e.stdout = os.Stdout
	}
	if e.stderr == nil {
		e.stderr = os.Stderr
	}
	evOut := e.stdout
	if eventsToStderr {
		evOut = e.stderr
	}
	if eventsToStderr {
		stageOutput.Store(true)
	}
	if e.jsonOut {
		e.ev = events.NewJSON(evOut)
	} else {
		e.ev = events.NewHuman(evOut, e.stderr, cmd.Bool("quiet"))
	}
	root, err := rootfs.Open(cmd.String("dir"))
	if err == nil {
		err = root.CheckReadable()
	}
	if err != nil {
		return nil, err
	}
	explicitStateDir.Store(cmd.String("state-dir") != "")
	e.root = root
	flags := map[string]string{}
	for flag, key := range flagKeys {
		if hasFlag(cmd, flag) && cmd.IsSet(flag) {
			flags[key] = cmd.String(flag)
		}
	}
	if hasFlag(cmd, "tls-cert") && (cmd.IsSet("tls-cert") || cmd.IsSet("tls-key")) {
		flags["server.tls.enabled"] = "true"
	}
	if hasFlag(cmd, "public") && cmd.Bool("public") {
		flags["server.public"] = "true"
	}
	if hasFlag(cmd, "auth") && cmd.IsSet("auth") {
		mode, path, _ := strings.Cut(cmd.String("auth"), ":")
		switch mode {
		case "auto", "none":
			if path != "" {
				return nil, errcode.FieldError(errcode.ConfigInvalid, "--auth", "--auth %s takes no path", mode)
			}
			flags["security.auth.mode"] = mode
		case "file":
			if path == "" {
				return nil, errcode.FieldError(errcode.ConfigInvalid, "--auth", "--auth file:<path> needs a path to a token file")
			}
			flags["security.auth.mode"] = "file"
			flags["security.auth.token_file"] = path
		default:
			return nil, errcode.FieldError(errcode.ConfigInvalid, "--auth", "--auth must be auto, none or file:<path>; got %q", cmd.String("auth"))
		}
	}
	cfg, src, err := config.Load(config.LoadOptions{Dir: root.Dir(), ConfigPath: cmd.String("config"), Flags: flags})
	if err != nil {
		return nil, err
	}
	e.cfg, e.src = cfg, src
	for _, w := range src.Warnings {
		e.ev.Emit(events.Warn, "config_warning", map[string]any{"message": w})
	}
	registerSecrets(cfg)
	e.dir = state.Resolve(root.Dir(), cmd.String("state-dir"))
	return e, nil
}

func hasFlag(cmd *ucli.Command, name string) bool {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// registerSecrets makes the event redactor mask every configured secret.
func registerSecrets(cfg *config.Config) {
	for _, s := range []config.Secret{cfg.Mistral.APIKey, cfg.OpenAI.APIKey, cfg.STT.Mistral.APIKey, cfg.STT.ElevenLabs.APIKey} {
		events.RegisterSecret(s.Value)
	}
}

// Store access modes for openStore.
const (
	readStore   = iota // read-only; a missing index is INDEX_NOT_READY
	writeStore         // read-write; a missing index is INDEX_NOT_READY
	createStore        // read-write; a missing index is created
)

// setupReader resolves the environment of a command that only reads the
// index, and opens it (INDEX_NOT_READY when there is none). Close the store.
func setupReader(ctx context.Context, cmd *ucli.Command) (*env, *store.Store, error) {
	e, err := setup(cmd, false)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.openStore(ctx, readStore)
	if err != nil {
		return nil, nil, err
	}
	return e, st, nil
}

// openStore opens the state dir's store in the given mode.
func (e *env) openStore(ctx context.Context, mode int) (*store.Store, error) {
	if mode == createStore {
		if err := e.dir.Ensure(); err != nil {
			return nil, err
		}
	}
	st, err := store.Open(ctx, e.dir.Path, store.Options{Create: mode == createStore, ReadOnly: mode == readStore})
	if err != nil || mode == readStore {
		return st, err
	}
	// A process that may write chunks keeps the keyword index in step
	// with them (whichever such process holds its lock).
	postings.Ensure(st, e.dir, func(msg string) {
		e.ev.Emit(events.Info, record.EvNotice, map[string]any{"message": msg})
	})
	return st, nil
}

// interactive reports whether prompts are allowed.
func (e *env) interactive() bool {
	return !e.cmd.Bool("non-interactive") && term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}

// stageOutput is set once a stage command (whose stdout carries records)
// has started, so a fatal event goes to stderr.
var stageOutput atomic.Bool

// Main runs a command with os.Args and returns the process exit code,
// printing errors in the SPEC §3.3 shape (or as a fatal event with --json).
func Main(ctx context.Context, cmd *ucli.Command, args []string) int {
	cmd.ExitErrHandler = func(context.Context, *ucli.Command, error) {}
	quietUsageErrors(cmd)
	err := buildError()
	if err == nil {
		err = cmd.Run(ctx, args)
	}
	if err == nil {
		return 0
	}
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Stopped by SIGINT/SIGTERM: the command has said what it left
		// undone (an index job reports itself interrupted); no ERROR line.
		return errcode.ExitInterrupted
	}
	if msg, ok := usageError(err); ok {
		fmt.Fprintf(os.Stderr, "ERROR: %s\nRun `%s --help` for usage.\n", msg, cmd.Name)
		return errcode.ExitConfigInvalid
	}
	if ex, ok := err.(ucli.ExitCoder); ok && errcode.Of(err) == errcode.Internal {
		if msg := ex.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, msg)
		}
		return ex.ExitCode()
	}
	err = explainStateDir(err)
	code := errcode.ExitCode(err)
	if jsonRequested(args) {
		out := os.Stdout
		if stageOutput.Load() || strings.HasPrefix(cmd.Name, "dir2mcp-") {
			out = os.Stderr // stdout carries records
		}
		events.NewJSON(out).Emit(events.Error, "fatal", map[string]any{
			"code": string(errcode.Of(err)), "message": events.Redact(errcode.As(err).Message), "exit_code": code,
		})
	}
	fmt.Fprintln(os.Stderr, events.Redact(formatError(err)))
	return code
}

// formatError renders an error per SPEC §3.3: "ERROR: CODE: message" plus
// any remediation lines the error carries.
func formatError(err error) string {
	e := errcode.As(err)
	if e.Code == errcode.Internal {
		return "ERROR: " + e.Message
	}
	return fmt.Sprintf("ERROR: %s: %s", e.Code, e.Message)
}

// quietUsageErrors makes a usage error print one line (see Main) instead of
// urfave's "Incorrect Usage" and the whole help text.
func quietUsageErrors(cmd *ucli.Command) {
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = func(_ context.Context, _ *ucli.Command, err error, _ bool) error { return err }
	}
	for _, c := range cmd.Commands {
		quietUsageErrors(c)
	}
}

// usageError reports whether err is a command-line usage mistake (unknown
// command or flag, bad flag value) and returns its message. Usage errors
// exit 2, like CONFIG_INVALID (SPEC §2.4).
func usageError(err error) (string, bool) {
	if errcode.Of(err) != errcode.Internal {
		return "", false
	}
	msg := err.Error()
	if topic, ok := strings.CutPrefix(msg, "No help topic for "); ok {
		return fmt.Sprintf("unknown command %q", strings.Trim(topic, "'")), true
	}
	if strings.Contains(msg, "flag provided but not defined") || strings.Contains(msg, "invalid value") ||
		strings.Contains(msg, "Required flag") || strings.HasPrefix(msg, "flag needs an argument") {
		return msg, true
	}
	return "", false
}

func jsonRequested(args []string) bool {
	for _, a := range args[1:] {
		if a == "--json" || a == "-json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// Exec runs cmd as the process's command: it cancels on SIGINT/SIGTERM and
// exits with the SPEC §2.4 exit code. It does not return.
func Exec(cmd *ucli.Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	endProfile := heapprof.Start()
	code := Main(ctx, cmd, os.Args)
	stop()
	endProfile()
	os.Exit(code)
}
