package cli

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	ucli "github.com/urfave/cli/v3"
)

// endpointURL is the HTTP endpoint a client config should name: --url as
// given, else the URL of a fixed listen address. A random port
// (server.listen "…:0", the default) would change at the next start, so the
// port is pinned first: --listen, else the running server's port (from
// connection.json), else a free port, written into the config file as
// server.listen (with --pin=false, or when the file cannot be written, the
// notes say what to add instead). notes is what to tell the user.
func endpointURL(e *env, cmd *ucli.Command) (endpoint, notes string, err error) {
	if u := cmd.String("url"); u != "" {
		return u, "", nil
	}
	running := ""
	if c, err := e.dir.ReadConnection(); err == nil && c.URL != "" {
		running = c.URL
	}
	listen := cmd.String("listen")
	if listen == "" {
		listen = e.cfg.Server.Listen
	}
	if fixedPort(listen) && cmd.String("listen") == "" {
		return listenURL(e, listen), "", nil // server.listen (file or env) is fixed already
	}
	if !fixedPort(listen) {
		port, err := pickPort(running)
		if err != nil {
			return "", "", err
		}
		host, _, _ := net.SplitHostPort(listen)
		if host == "" {
			host = "127.0.0.1"
		}
		listen = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	endpoint = listenURL(e, listen)
	if u, err := url.Parse(running); err == nil && u.Port() != "" && endpoint == running {
		running = "" // the running server already listens there
	}
	return endpoint, pinListen(e, cmd, listen, running != ""), nil
}

// pinListen writes server.listen = listen into the config file unless the
// file already says so, and returns the note for the user.
func pinListen(e *env, cmd *ucli.Command, listen string, restart bool) string {
	path := cmd.String("config")
	if path == "" {
		path = filepath.Join(e.root.Dir(), config.DefaultFileName)
	}
	add := fmt.Sprintf("add\n  server:\n    listen: %s\nto %s (or start the server with --listen %s) so this URL stays the same after a restart.\n", listen, path, listen)
	if src := e.src.Of("server.listen"); strings.HasPrefix(src, "env:") {
		return fmt.Sprintf("server.listen comes from $%s: set it to %s (or start the server with --listen %s) so this URL stays the same after a restart.\n",
			strings.TrimPrefix(src, "env:"), listen, listen)
	}
	if base, _, err := config.Load(config.LoadOptions{Dir: e.root.Dir(), ConfigPath: cmd.String("config")}); err == nil && base.Server.Listen == listen {
		return ""
	}
	if !cmd.Bool("pin") {
		return "The port is not pinned (--pin=false): " + add
	}
	if err := config.SetInFile(path, "server.listen", listen); err != nil {
		return fmt.Sprintf("Could not pin the port (%s): ", errcode.As(err).Message) + add
	}
	note := fmt.Sprintf("Pinned the port: wrote server.listen: %s to %s, so this URL stays the same after a restart.\n", listen, path)
	if restart {
		note += "Restart the running server to move it to that port.\n"
	}
	return note
}

// fixedPort reports whether listen names a port other than 0.
func fixedPort(listen string) bool {
	_, port, err := net.SplitHostPort(listen)
	return err == nil && port != "" && port != "0"
}

// pickPort is the running server's port, else a port that is free now.
func pickPort(running string) (string, error) {
	if u, err := url.Parse(running); err == nil && u.Port() != "" {
		return u.Port(), nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", errcode.Wrap(errcode.BindFailed, err, "cannot find a free port: %v", err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port, nil
}

// listenURL is the MCP endpoint of a server listening on listen.
func listenURL(e *env, listen string) string {
	host, port, _ := net.SplitHostPort(listen)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	scheme := "http"
	if e.cfg.Server.TLS.Enabled || e.cfg.Server.TLS.CertFile != "" {
		scheme = "https"
	}
	return scheme + "://" + net.JoinHostPort(strings.Trim(host, "[]"), port) + e.cfg.Server.MCPPath
}
