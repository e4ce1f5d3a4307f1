package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"

	"github.com/dir2mcp/dir2mcp/lib/config"
	"github.com/dir2mcp/dir2mcp/lib/errcode"
	"github.com/dir2mcp/dir2mcp/lib/indexer"
)

// ToolNames lists every tool dir2mcp can serve, in tools/list order.
func ToolNames() []string { return slices.Clone(toolNames()) }

var toolNames = sync.OnceValue(func() []string {
	var s Server
	var names []string
	for _, d := range s.allTools() {
		names = append(names, d.tool.Name)
	}
	return names
})

// ResolveTools turns tool names as an operator writes them ("search" or
// "dir2mcp.search") into full names, refusing unknown ones with
// CONFIG_INVALID naming field and the valid names.
func ResolveTools(field string, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil // every tool; the list is built when first needed
	}
	all := toolNames()
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		full := n
		if !strings.Contains(n, ".") {
			full = "dir2mcp." + n
		}
		if !slices.Contains(all, full) {
			return nil, errcode.FieldError(errcode.ConfigInvalid, field, "%s: unknown tool %q; the tools are %s", field, n, strings.Join(all, ", "))
		}
		if !slices.Contains(out, full) {
			out = append(out, full)
		}
	}
	return out, nil
}

// CheckControls validates the operator's controls in cfg before a server
// is built: the redaction patterns compile, and server.tools names served
// tools (normalised in place to full names).
func CheckControls(cfg *config.Config) error {
	if _, err := indexer.Redactor(cfg); err != nil {
		return err
	}
	tools, err := ResolveTools("server.tools", cfg.Server.Tools)
	if err != nil {
		return err
	}
	cfg.Server.Tools = tools
	return nil
}

func randomID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
