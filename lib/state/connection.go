package state

import (
	"encoding/json"
	"os"

	"github.com/dir2mcp/dir2mcp/lib/atomicfile"
)

// ProtocolVersion is the MCP protocol version dir2mcp targets.
const ProtocolVersion = "2025-11-25"

// Connection is connection.json (SPEC §4.3) and the `connection` event data
// (SPEC §3.2). It never holds the token itself.
type Connection struct {
	Transport   string            `json:"transport"`
	URL         string            `json:"url"`
	Headers     map[string]string `json:"headers"`
	TokenSource string            `json:"token_source,omitempty"`
	TokenFile   string            `json:"token_file,omitempty"`
	TokenEnv    string            `json:"token_env,omitempty"`
	Session     SessionInfo       `json:"session"`
	PID         int               `json:"pid,omitempty"`
}

// SessionInfo describes MCP session handling for clients.
type SessionInfo struct {
	UsesMCPSessionID     bool   `json:"uses_mcp_session_id"`
	HeaderName           string `json:"header_name"`
	AssignedOnInitialize bool   `json:"assigned_on_initialize"`
}

// NewConnection describes an HTTP endpoint at url using token t (Source ""
// means auth is off).
func NewConnection(url string, t Token) Connection {
	h := map[string]string{"MCP-Protocol-Version": ProtocolVersion}
	c := Connection{
		Transport: "mcp_streamable_http",
		URL:       url,
		Headers:   h,
		Session:   SessionInfo{UsesMCPSessionID: true, HeaderName: "MCP-Session-Id", AssignedOnInitialize: true},
		PID:       os.Getpid(),
	}
	switch t.Source {
	case "":
		c.TokenSource = "none"
	case "secret.token":
		h["Authorization"] = "Bearer <token-from-secret.token>"
		c.TokenSource, c.TokenFile = "secret.token", t.File
	case "file":
		h["Authorization"] = "Bearer <token-from-file>"
		c.TokenSource, c.TokenFile = "file", t.File
	case "env":
		h["Authorization"] = "Bearer <token-from-env>"
		c.TokenSource, c.TokenEnv = "env", t.EnvName
	}
	return c
}

// WriteConnection writes connection.json atomically. It is not synced to
// disk: it describes the running server, which writes it before it says
// it is ready (a sync there is latency a client waits for) and removes it
// when it stops.
func (d Dir) WriteConnection(c Connection) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteVolatile(d.Join(ConnectionFile), append(b, '\n'), FileMode)
}

// ReadConnection reads connection.json.
func (d Dir) ReadConnection() (Connection, error) {
	var c Connection
	b, err := os.ReadFile(d.Join(ConnectionFile))
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal(b, &c)
}

// RemoveConnection deletes connection.json if it describes the process pid,
// so a stopped server does not leave clients a dead URL (another server
// that took over the file keeps it).
func (d Dir) RemoveConnection(pid int) {
	if c, err := d.ReadConnection(); err == nil && c.PID == pid {
		_ = os.Remove(d.Join(ConnectionFile))
	}
}
