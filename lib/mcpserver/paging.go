package mcpserver

import (
	"context"
	"crypto/rand"

	"github.com/dir2mcp/dir2mcp/lib/corpus"
	"github.com/dir2mcp/dir2mcp/lib/cursor"
)

// cursorParam continues a paged call (list_files, find, grep, search).
var cursorParam = str("cursor", "next_cursor of a previous result: continues that call (repeat its other arguments unchanged; the page size may change)")

// cursorSigner signs cursors with the state directory's key; without one
// (no state directory, or it cannot be written) with a key of this
// process, so cursors still work until it exits.
func (s *Server) cursorSigner() *cursor.Signer {
	if s.Dir.Path != "" {
		key, err := s.Dir.EnsureCursorKey()
		if err == nil {
			return cursor.New(key)
		}
		s.log.Warn("cursor key unavailable; cursors last only as long as this process", "err", err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return cursor.New(key)
}

// binding is what a cursor is bound to: the normalized arguments of the
// call and the credential's scope, so a cursor serves only the same query
// for the same caller.
type binding struct {
	Scope string `json:"scope,omitempty"`
	Args  any    `json:"args"`
}

func bind(ctx context.Context, args any) binding {
	b := binding{Args: args}
	if sc := corpus.ScopeFrom(ctx); sc != nil {
		b.Scope = sc.Label
	}
	return b
}

// resume decodes the call's cursor for tool into pos; false when the call
// has none. args are the call's normalized arguments (without the cursor
// and the page size).
func (s *Server) resume(ctx context.Context, tool string, a *args, args, pos any) (bool, error) {
	c := a.str("cursor")
	if c == "" { // absent, or the empty next_cursor of a last page passed along
		return false, nil
	}
	return true, s.cursors.Open(tool, bind(ctx, args), c, pos)
}

// cursorAt returns the cursor continuing tool's call with args at pos.
func (s *Server) cursorAt(ctx context.Context, tool string, args, pos any) string {
	c, err := s.cursors.Issue(tool, bind(ctx, args), pos)
	if err != nil {
		s.log.Error("issuing cursor", "tool", tool, "err", err)
		return ""
	}
	return c
}
